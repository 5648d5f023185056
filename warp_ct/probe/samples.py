"""What each run and sample of a measurement recorded (no analysis: see :mod:`analysis`).

:class:`RunResult` is one execution of the command, :class:`SampleResult` a cold and a warm
run on one fresh cache plus what that cache held afterwards (:class:`CacheScan`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from warp_ct.probe.records import CacheRemoval, Cause, ConfigAssignment, LaunchSignature, ModuleLoad, RunRecords, TapedKernel


@dataclass
class RunResult:
    """One execution of the command (``cold`` on an empty cache, ``warm`` on the same cache)."""

    kind: str
    exit_code: int
    wall_s: float
    loads: list[ModuleLoad] = field(default_factory=list)
    launches: list[LaunchSignature] = field(default_factory=list)
    total_launches: int = 0
    unrecorded_launches: int = 0
    launch_data_complete: bool = True
    warp_versions: list[str] = field(default_factory=list)
    warp_processes: int = 0
    cache_dirs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    uncaught: list[dict[str, Any]] = field(default_factory=list)
    stderr_tail: str = ""
    config_assignments: list[ConfigAssignment] = field(default_factory=list)
    taped: list[TapedKernel] = field(default_factory=list)
    warp_config: dict[str, Any] = field(default_factory=dict)
    cpu_s: float | None = None  # CPU time of the command (user + system), None if unknown
    causes: list[Cause] = field(default_factory=list)  # why loads happened (attribution)
    cache_removals: list[CacheRemoval] = field(default_factory=list)  # what removed the kernel cache
    user_files: list[str] = field(default_factory=list)  # the user's source files the run imported

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    @classmethod
    def from_records(
        cls, kind: str, exit_code: int, wall_s: float, records: RunRecords, stderr_tail: str,
        cpu_s: float | None = None,
    ) -> RunResult:
        return cls(
            kind=kind,
            exit_code=exit_code,
            wall_s=round(wall_s, 4),
            loads=records.loads,
            launches=records.launches,
            total_launches=records.total_launches,
            unrecorded_launches=records.unrecorded_launches,
            launch_data_complete=records.launch_data_complete,
            warp_versions=records.warp_versions,
            warp_processes=records.warp_processes,
            cache_dirs=records.cache_dirs,
            notes=records.notes,
            uncaught=records.uncaught,
            # Keep the tail only where it explains something: failures.
            stderr_tail=stderr_tail if exit_code != 0 else "",
            config_assignments=records.config_assignments,
            taped=records.taped,
            warp_config=records.warp_config,
            cpu_s=None if cpu_s is None else round(cpu_s, 4),
            causes=records.causes,
            cache_removals=records.cache_removals,
            user_files=records.user_files,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "exit_code": self.exit_code,
            "wall_s": round(self.wall_s, 4),
            "loads": [load.to_dict() for load in self.loads],
            "launches": [launch.to_dict() for launch in self.launches],
            "total_launches": self.total_launches,
            "unrecorded_launches": self.unrecorded_launches,
            "launch_data_complete": self.launch_data_complete,
            "warp_versions": self.warp_versions,
            "warp_processes": self.warp_processes,
            "cache_dirs": self.cache_dirs,
            "notes": self.notes,
            "uncaught": self.uncaught,
            "stderr_tail": self.stderr_tail,
            "config_assignments": [a.to_dict() for a in self.config_assignments],
            "taped": [t.to_dict() for t in self.taped],
            "warp_config": self.warp_config,
            "cpu_s": self.cpu_s,
            "causes": [c.to_dict() for c in self.causes],
            "cache_removals": [r.to_dict() for r in self.cache_removals],
            "user_files": list(self.user_files),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunResult:
        return cls(
            kind=str(data["kind"]),
            exit_code=int(data["exit_code"]),
            wall_s=float(data["wall_s"]),
            loads=[ModuleLoad.from_dict(d) for d in data.get("loads", ())],
            launches=[LaunchSignature.from_dict(d) for d in data.get("launches", ())],
            total_launches=int(data.get("total_launches", 0)),
            unrecorded_launches=int(data.get("unrecorded_launches", 0)),
            launch_data_complete=bool(data.get("launch_data_complete", True)),
            warp_versions=list(data.get("warp_versions", ())),
            warp_processes=int(data.get("warp_processes", 0)),
            cache_dirs=list(data.get("cache_dirs", ())),
            notes=list(data.get("notes", ())),
            uncaught=list(data.get("uncaught", ())),
            stderr_tail=str(data.get("stderr_tail", "")),
            config_assignments=[ConfigAssignment.from_dict(a) for a in data.get("config_assignments", ())],
            taped=[TapedKernel.from_dict(t) for t in data.get("taped", ())],
            warp_config=dict(data.get("warp_config") or {}),
            cpu_s=None if data.get("cpu_s") is None else float(data["cpu_s"]),
            causes=[Cause.from_dict(c) for c in data.get("causes", ())],
            cache_removals=[CacheRemoval.from_dict(r) for r in data.get("cache_removals", ())],
            user_files=[str(f) for f in data.get("user_files", ())],
        )


@dataclass
class CacheScan:
    """What the sample's private kernel cache held after both runs."""

    generated_source_bytes: int = 0
    source_bytes_by_dir: dict[str, int] = field(default_factory=dict)  # "wp_<name>_<hash7>" -> bytes
    lto_artifacts: int = 0
    lto_bytes: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "generated_source_bytes": self.generated_source_bytes,
            "source_bytes_by_dir": self.source_bytes_by_dir,
            "lto_artifacts": self.lto_artifacts,
            "lto_bytes": self.lto_bytes,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CacheScan:
        return cls(
            generated_source_bytes=int(data.get("generated_source_bytes", 0)),
            source_bytes_by_dir=dict(data.get("source_bytes_by_dir") or {}),
            lto_artifacts=int(data.get("lto_artifacts", 0)),
            lto_bytes=int(data.get("lto_bytes", 0)),
        )


_SOURCE_SUFFIXES = (".cpp", ".cu")
_LTO_SUFFIXES = (".lto", ".ltoir")


def scan_kernel_cache(cache_root: str | os.PathLike[str]) -> CacheScan:
    """Sum generated source per module directory and count LTO artifacts (``lto/`` or *.lto*)."""
    scan = CacheScan()
    root = Path(cache_root)
    for dirpath, _dirnames, filenames in os.walk(root):
        parts = Path(dirpath).relative_to(root).parts
        in_lto_dir = "lto" in parts
        module_dir = next((p for p in parts if p.startswith("wp_")), None)
        for name in filenames:
            try:
                size = os.path.getsize(os.path.join(dirpath, name))
            except OSError:
                continue
            if in_lto_dir or name.endswith(_LTO_SUFFIXES):
                scan.lto_artifacts += 1
                scan.lto_bytes += size
            elif name.endswith(_SOURCE_SUFFIXES) and module_dir is not None:
                scan.generated_source_bytes += size
                scan.source_bytes_by_dir[module_dir] = scan.source_bytes_by_dir.get(module_dir, 0) + size
    return scan


@dataclass
class SampleResult:
    index: int
    cold: RunResult
    warm: RunResult | None
    cache: CacheScan = field(default_factory=CacheScan)
    cuda: Any = None  # a warp_ct.probe.cuda_records.CudaRun: the --cuda-arch builds after the warm run

    @property
    def ok(self) -> bool:
        return self.cold.ok and self.warm is not None and self.warm.ok

    def to_dict(self) -> dict[str, Any]:
        data = {
            "index": self.index,
            "ok": self.ok,
            "cold": self.cold.to_dict(),
            "warm": None if self.warm is None else self.warm.to_dict(),
            "cache": self.cache.to_dict(),
        }
        if self.cuda is not None:
            data["cuda"] = self.cuda.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SampleResult:
        warm = data.get("warm")
        return cls(
            index=int(data["index"]),
            cold=RunResult.from_dict(data["cold"]),
            warm=None if warm is None else RunResult.from_dict(warm),
            cache=CacheScan.from_dict(data.get("cache") or {}),
            cuda=_cuda_run(data.get("cuda")),
        )


def _cuda_run(data: Any) -> Any:
    if not isinstance(data, dict):
        return None
    from warp_ct.probe.cuda_records import CudaRun

    return CudaRun.from_dict(data)
