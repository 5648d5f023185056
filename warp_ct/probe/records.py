"""What one run of the measured command recorded, parsed from the bootstrap's JSON lines.

The bootstrap (``inject/sitecustomize.py``) writes one ``<pid>.jsonl`` file per Python
process. :func:`read_records_dir` merges them into a :class:`RunRecords`; malformed lines
(a process killed mid-write) are skipped and counted, never fatal.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


_INSTALLED = ("site-packages", "dist-packages")


def is_user_file(path: str | None) -> bool:
    """A file of the user's: not generated code (``<string>``: ``wp.map``'s kernels), not an
    installed package (site-packages), not Warp's own sources. None (unknown) counts as the
    user's: nothing says otherwise."""
    return package_of_file(path) is None


def package_of_file(path: str | None) -> str | None:
    """The package a source file belongs to, None for the user's own files: ``warp.fem`` for
    ``.../site-packages/warp/_src/fem/integrate.py``, ``warp`` for Warp's core files and for
    generated code (``<string>``), ``newton`` for ``.../site-packages/newton/solver.py``."""
    if not path:
        return None
    if path.startswith("<"):
        return "warp"
    parts = path.replace("\\", "/").split("/")
    for index, part in enumerate(parts):
        if part in _INSTALLED and index + 1 < len(parts):
            rest = parts[index + 1:]
            top = rest[0].removesuffix(".py")
            return _warp_package(rest) if top == "warp" else top
    for index in range(len(parts) - 2):  # Warp from a source checkout: .../warp/_src/...
        if parts[index] == "warp" and parts[index + 1] == "_src":
            return _warp_package(parts[index:])
    return None


def _warp_package(parts: list[str]) -> str:
    """``warp.fem`` for warp/_src/fem/..., ``warp.examples`` for warp/examples/..., else ``warp``."""
    inner = [p for p in parts[1:] if p != "_src"]
    return f"warp.{inner[0]}" if len(inner) > 1 else "warp"


def entry_package(entry: dict[str, Any] | None) -> str | None:
    """The package a user's line called into when something happened below it (a cause's
    ``entry``): ``warp.fem`` for ``fem.integrate``, ``newton`` for a solver of newton's; None
    for Warp's core API (``wp.kernel``, ``wp.launch``, ``set_module_options``: the user's own
    act) or when the event was the user's own code."""
    if not entry:
        return None
    module = entry.get("module")
    if isinstance(module, str) and module:
        parts = [p for p in module.split(".") if p != "_src"]
        if parts[0] == "warp":
            return f"warp.{parts[1]}" if len(parts) > 2 else None
        return parts[0]
    package = package_of_file(entry.get("file"))
    return None if package == "warp" else package


@dataclass(frozen=True)
class KernelSource:
    key: str
    file: str | None
    line: int | None  # first line of the definition (the decorator line)
    backward: bool | None = None  # the kernel's own enable_backward (decorator option), None: the module's

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"key": self.key, "file": self.file, "line": self.line}
        if self.backward is not None:
            data["backward"] = self.backward
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KernelSource:
        backward = data.get("backward")
        return cls(str(data.get("key")), data.get("file"), data.get("line"), None if backward is None else bool(backward))


@dataclass(frozen=True)
class ModuleLoad:
    """One real module load: a native build (``compiled``), a cache hit (``cached``) or ``error``."""

    module: str
    hash: str | None
    device: str
    block_dim: int | None
    start_s: float  # seconds since the run started (parent clock)
    ms: float
    status: str
    native_ms: float | None
    pid: int
    kernels: tuple[KernelSource, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    option_names: tuple[str, ...] = ()  # every module option this Warp knows
    config: dict[str, Any] = field(default_factory=dict)  # inherited wp.config values at load

    @property
    def short_hash(self) -> str:
        return (self.hash or "?")[:8]

    def to_dict(self) -> dict[str, Any]:
        return {
            "module": self.module,
            "hash": self.hash,
            "device": self.device,
            "block_dim": self.block_dim,
            "start_s": round(self.start_s, 4),
            "ms": self.ms,
            "status": self.status,
            "native_ms": self.native_ms,
            "pid": self.pid,
            "kernels": [k.to_dict() for k in self.kernels],
            "options": self.options,
            "error": self.error,
            "option_names": list(self.option_names),
            "config": self.config,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModuleLoad:
        return cls(
            module=str(data.get("module")),
            hash=data.get("hash"),
            device=str(data.get("device")),
            block_dim=data.get("block_dim"),
            start_s=float(data.get("start_s", 0.0)),
            ms=float(data.get("ms", 0.0)),
            status=str(data.get("status", "cached")),
            native_ms=data.get("native_ms"),
            pid=int(data.get("pid", 0)),
            kernels=tuple(KernelSource.from_dict(k) for k in data.get("kernels", ())),
            options=dict(data.get("options") or {}),
            error=data.get("error"),
            option_names=tuple(str(n) for n in data.get("option_names") or ()),
            config=dict(data.get("config") or {}),
        )


@dataclass(frozen=True)
class LaunchSignature:
    """A distinct launch shape and how often it happened, in order of first appearance."""

    kernel: str
    module: str | None
    dim: tuple[Any, ...]
    device: str | None
    dtypes: tuple[str, ...]
    block_dim: int | None
    adjoint: bool
    count: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "kernel": self.kernel,
            "module": self.module,
            "dim": list(self.dim),
            "device": self.device,
            "dtypes": list(self.dtypes),
            "block_dim": self.block_dim,
            "adjoint": self.adjoint,
            "count": self.count,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LaunchSignature:
        return cls(
            kernel=str(data.get("kernel")),
            module=data.get("module"),
            dim=tuple(data.get("dim") or ()),
            device=data.get("device"),
            dtypes=tuple(data.get("dtypes") or ()),
            block_dim=data.get("block_dim"),
            adjoint=bool(data.get("adjoint", False)),
            count=int(data.get("count", 0)),
        )


@dataclass(frozen=True)
class ConfigAssignment:
    """The program assigned a compile option of ``wp.config`` (``ignored``: a lever held it)."""

    name: str
    value: Any
    file: str | None
    line: int | None
    ignored: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "file": self.file, "line": self.line, "ignored": self.ignored}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ConfigAssignment:
        line = data.get("line")
        return cls(str(data.get("name")), data.get("value"), data.get("file"), None if line is None else int(line),
                   bool(data.get("ignored", False)))  # fmt: skip


@dataclass(frozen=True)
class TapedKernel:
    """A kernel that a ``wp.Tape`` recorded: something differentiates through it."""

    kernel: str
    module: str | None
    count: int

    def to_dict(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "module": self.module, "count": self.count}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TapedKernel:
        return cls(str(data.get("kernel")), data.get("module"), int(data.get("count", 0)))


@dataclass(frozen=True)
class Frame:
    """A user frame (outside Warp, the standard library and installed packages)."""

    file: str
    line: int
    function: str

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "function": self.function}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Frame:
        return cls(str(data.get("file")), int(data.get("line") or 0), str(data.get("function", "")))


# Why a real load happened, as the bootstrap attributes it (``cause`` records).
CAUSES = ("options", "kernel_added", "function_added", "struct_added", "generic_instance", "block_dim",
          "unique_module", "modified", "config", "config_ignored", "backward_option", "package_build", "captured_global")  # fmt: skip


@dataclass(frozen=True)
class Cause:
    """Why module ``module`` was loaded again (or at all) with ``hash``, and where.

    ``frames`` are the user frames of the event, innermost first (the definition of a kernel
    added late, the ``set_module_options`` call, the launch that instantiated a generic kernel
    or asked for a new block_dim); ``load_frames`` those of the load that paid for it.
    ``package`` names the installed package that did it when no user frame is innermost.
    ``entry`` / ``load_entry``: what the innermost user frame called, when the event happened
    below it in Warp or a package (``{"module": "warp._src.fem.integrate", "function":
    "interpolate", "file": ...}``; see :func:`entry_package`); None in older reports.
    """

    cause: str
    module: str
    hash: str | None
    device: str | None
    block_dim: int | None
    detail: dict[str, Any]
    frames: tuple[Frame, ...] = ()
    load_frames: tuple[Frame, ...] = ()
    package: str | None = None
    pid: int = 0
    entry: dict[str, Any] | None = None
    load_entry: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "cause": self.cause,
            "module": self.module,
            "hash": self.hash,
            "device": self.device,
            "block_dim": self.block_dim,
            "detail": self.detail,
            "frames": [f.to_dict() for f in self.frames],
            "load_frames": [f.to_dict() for f in self.load_frames],
            "package": self.package,
            "pid": self.pid,
            "entry": self.entry,
            "load_entry": self.load_entry,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Cause:
        return cls(
            cause=str(data.get("cause")),
            module=str(data.get("module")),
            hash=data.get("hash"),
            device=data.get("device"),
            block_dim=data.get("block_dim"),
            detail=dict(data.get("detail") or {}),
            frames=tuple(Frame.from_dict(f) for f in data.get("frames") or ()),
            load_frames=tuple(Frame.from_dict(f) for f in data.get("load_frames") or ()),
            package=data.get("package"),
            pid=int(data.get("pid", 0)),
            entry=_entry(data.get("entry")),
            load_entry=_entry(data.get("load_entry")),
        )


def _entry(data: Any) -> dict[str, Any] | None:
    return {str(k): v for k, v in data.items()} if isinstance(data, dict) else None


# What removed or bypassed the kernel cache (``cache_removal`` records).
CACHE_REMOVALS = ("clear_kernel_cache", "clear_lto_cache", "rmtree", "temporary_kernel_cache_dir", "cache_kernels_off")


@dataclass(frozen=True)
class CacheRemoval:
    """The program removed the kernel cache (or pointed Warp at a throw-away one), and where.

    ``frames``: user frames of the call (innermost first); ``atexit_frames``: when the call ran
    at exit, the user frames of the ``atexit.register`` call that registered it.
    """

    what: str
    path: str | None
    frames: tuple[Frame, ...] = ()
    atexit_frames: tuple[Frame, ...] | None = None
    package: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "what": self.what,
            "path": self.path,
            "frames": [f.to_dict() for f in self.frames],
            "atexit_frames": None if self.atexit_frames is None else [f.to_dict() for f in self.atexit_frames],
            "package": self.package,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CacheRemoval:
        at_exit = data.get("atexit_frames")
        return cls(
            what=str(data.get("what")),
            path=data.get("path"),
            frames=tuple(Frame.from_dict(f) for f in data.get("frames") or ()),
            atexit_frames=None if at_exit is None else tuple(Frame.from_dict(f) for f in at_exit),
            package=data.get("package"),
        )


@dataclass
class RunRecords:
    """Everything the bootstrap wrote during one run (all processes of the command)."""

    warp_versions: list[str] = field(default_factory=list)
    loads: list[ModuleLoad] = field(default_factory=list)
    launches: list[LaunchSignature] = field(default_factory=list)
    total_launches: int = 0
    unrecorded_launches: int = 0  # launches of signatures beyond the bootstrap's bound
    launch_data_complete: bool = True  # False when a process exited without flushing
    warp_processes: int = 0
    python_processes: int = 0
    cache_dirs: list[str] = field(default_factory=list)
    uncaught: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    malformed_lines: int = 0
    config_assignments: list[ConfigAssignment] = field(default_factory=list)
    taped: list[TapedKernel] = field(default_factory=list)
    warp_config: dict[str, Any] = field(default_factory=dict)  # wp.config when Warp was imported
    causes: list[Cause] = field(default_factory=list)  # why loads happened, in order
    cache_removals: list[CacheRemoval] = field(default_factory=list)
    user_files: list[str] = field(default_factory=list)  # the user's modules the processes imported


def read_records_dir(records_dir: str | os.PathLike[str], run_start_epoch: float) -> RunRecords:
    """Merge the per-process record files of one run, ordered by time."""
    out = RunRecords()
    per_process: list[tuple[float, list[dict[str, Any]]]] = []
    for path in sorted(Path(records_dir).glob("*.jsonl")):
        records: list[dict[str, Any]] = []
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                out.malformed_lines += 1
                continue
            if isinstance(record, dict):
                records.append(record)
        if records:
            first_t = min(float(r.get("t", r.get("t0", 0.0)) or 0.0) for r in records)
            per_process.append((first_t, records))
    per_process.sort(key=lambda item: item[0])

    for _, records in per_process:
        out.python_processes += 1
        saw_warp = saw_launches = False
        for record in records:
            kind = record.get("kind")
            if kind == "warp":
                saw_warp = True
                out.warp_processes += 1
                version = str(record.get("version"))
                if version not in out.warp_versions:
                    out.warp_versions.append(version)
                for note in record.get("notes") or ():
                    if note not in out.notes:
                        out.notes.append(note)
                if not out.warp_config and isinstance(record.get("config"), dict):
                    out.warp_config = dict(record["config"])
            elif kind == "config_set":
                out.config_assignments.append(ConfigAssignment.from_dict(record))
            elif kind == "load":
                data = dict(record)
                data["start_s"] = round(float(record.get("t0", run_start_epoch)) - run_start_epoch, 4)
                out.loads.append(ModuleLoad.from_dict(data))
                cache_dir = record.get("cache_dir")
                if cache_dir and cache_dir not in out.cache_dirs:
                    out.cache_dirs.append(cache_dir)
            elif kind == "launches":
                saw_launches = True
                out.total_launches += int(record.get("total", 0))
                out.unrecorded_launches += int(record.get("overflow_launches", 0))
                out.launches.extend(LaunchSignature.from_dict(s) for s in record.get("signatures") or ())
                out.taped.extend(TapedKernel.from_dict(t) for t in record.get("taped") or ())
                for path in record.get("user_files") or ():
                    if path not in out.user_files:
                        out.user_files.append(str(path))
            elif kind == "cause":
                out.causes.append(Cause.from_dict(record))
            elif kind == "cache_removal":
                out.cache_removals.append(CacheRemoval.from_dict(record))
            elif kind == "uncaught":
                out.uncaught.append(record)
        if saw_warp and not saw_launches:
            out.launch_data_complete = False
    out.loads.sort(key=lambda load: load.start_s)
    return out
