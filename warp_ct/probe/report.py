"""The probe report: raw per-sample measurements plus what :mod:`analysis` derives from them.

JSON layout (``schema_version`` 1, validated by ``report.schema.json`` in tests)::

    {"schema_version": 1, "tool": "warp-ct 0.1.0", "command": [...], "cwd": "...",
     "created": "ISO-8601", "warp_versions": [...], "notes": [...],
     "samples": [{"index", "cold": RUN, "warm": RUN|null, "cache": CACHE}],
     "summary": {metric: {"median", "mad", "n"}}, "modules": [...], "diagnoses": [...],
     "launch_topology": [...]}

Only ``samples`` (and the header) are read back by :meth:`ProbeReport.from_json_dict`; the
derived sections are recomputed, so an old report read by a newer warp-ct gets the newer
analysis.
"""

from __future__ import annotations

import datetime as _dt
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from warp_ct.probe.errors import ReportError
from warp_ct.probe.records import LaunchSignature, ModuleLoad, RunRecords

SCHEMA_VERSION = 1


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

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    @classmethod
    def from_records(
        cls, kind: str, exit_code: int, wall_s: float, records: RunRecords, stderr_tail: str
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

    @property
    def ok(self) -> bool:
        return self.cold.ok and self.warm is not None and self.warm.ok

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "ok": self.ok,
            "cold": self.cold.to_dict(),
            "warm": None if self.warm is None else self.warm.to_dict(),
            "cache": self.cache.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SampleResult:
        warm = data.get("warm")
        return cls(
            index=int(data["index"]),
            cold=RunResult.from_dict(data["cold"]),
            warm=None if warm is None else RunResult.from_dict(warm),
            cache=CacheScan.from_dict(data.get("cache") or {}),
        )


@dataclass
class ProbeReport:
    """A measurement: the command, its samples, and (derived on demand) the analysis.

    Stable API (used by the language server): :meth:`to_json_dict`, :meth:`from_json_dict`,
    :attr:`samples`, :attr:`analysis`.
    """

    command: list[str]
    cwd: str
    samples: list[SampleResult]
    created: str = field(default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
    tool: str = ""
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.tool:
            from warp_ct import __version__

            self.tool = f"warp-ct {__version__}"
        self._analysis: Any = None

    @property
    def ok_samples(self) -> list[SampleResult]:
        return [s for s in self.samples if s.ok]

    @property
    def warp_versions(self) -> list[str]:
        versions: list[str] = []
        for sample in self.samples:
            for run in (sample.cold, sample.warm):
                for v in run.warp_versions if run else ():
                    if v not in versions:
                        versions.append(v)
        return versions

    @property
    def analysis(self):  # -> warp_ct.probe.analysis.Analysis (import cycle kept lazy)
        if self._analysis is None:
            from warp_ct.probe.analysis import analyze

            self._analysis = analyze(self)
        return self._analysis

    def to_json_dict(self) -> dict[str, Any]:
        analysis = self.analysis
        return {
            "schema_version": SCHEMA_VERSION,
            "tool": self.tool,
            "command": list(self.command),
            "cwd": self.cwd,
            "created": self.created,
            "warp_versions": self.warp_versions,
            "notes": list(self.notes) + list(analysis.notes),
            "samples": [s.to_dict() for s in self.samples],
            "summary": {name: summary.to_dict() for name, summary in analysis.summary.items()},
            "modules": [m.to_dict() for m in analysis.modules],
            "diagnoses": [d.to_dict() for d in analysis.diagnoses],
            "launch_topology": [list(entry) for entry in analysis.launch_topology],
        }

    @classmethod
    def from_json_dict(cls, data: Any) -> ProbeReport:
        """Rebuild a report from :meth:`to_json_dict` output; raises :class:`ReportError`."""
        if not isinstance(data, dict) or "schema_version" not in data:
            raise ReportError("not a warp-ct probe report (no schema_version)")
        version = data["schema_version"]
        if version != SCHEMA_VERSION:
            raise ReportError(
                f"probe report schema version {version} is not supported (this warp-ct reads {SCHEMA_VERSION})"
            )
        try:
            analysis_notes = set(_derived_notes(data))
            return cls(
                command=list(data["command"]),
                cwd=str(data.get("cwd", "")),
                samples=[SampleResult.from_dict(s) for s in data["samples"]],
                created=str(data.get("created", "")),
                tool=str(data.get("tool", "")),
                notes=[n for n in data.get("notes", ()) if n not in analysis_notes],
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ReportError(f"malformed probe report: {error!r}") from None


def _derived_notes(data: dict[str, Any]) -> list[str]:
    """Notes that the analysis re-derives (not to be duplicated on a round trip)."""
    try:
        report = ProbeReport(command=[], cwd="", samples=[SampleResult.from_dict(s) for s in data["samples"]])
        return list(report.analysis.notes)
    except Exception:
        return []


def load_report(path: str | os.PathLike[str]) -> ProbeReport:
    """Read a JSON report file; a missing or malformed file raises :class:`ReportError`."""
    import json

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise ReportError(f"cannot read report {path}: {error.strerror or error}") from None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ReportError(f"report {path} is not JSON: {error}") from None
    return ProbeReport.from_json_dict(data)
