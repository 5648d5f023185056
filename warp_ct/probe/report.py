"""The probe report: raw per-sample measurements plus what :mod:`analysis` derives from them.

JSON layout (``schema_version`` 2, validated by ``report.schema.json`` in tests)::

    {"schema_version": 2, "tool": "warp-ct 0.1.0", "command": [...], "cwd": "...",
     "created": "ISO-8601", "warp_versions": [...], "notes": [...],
     "samples": [{"index", "cold": RUN, "warm": RUN|null, "cache": CACHE}],
     "summary": {metric: {"median", "mad", "n"}}, "modules": [...], "diagnoses": [...],
     "launch_topology": [...], "findings": [...]}

``--cuda-arch`` adds (still version 2: optional keys) ``cuda`` to each sample (the builds of
its CUDA run) and a derived ``cuda`` section (builds over samples, totals per arch, notes).

Version 2 added the attribution: ``causes`` in each run and module, and ``findings`` (measured
findings in the shape of ``warp-ct lint --output-format json`` items plus ``"origin":
"measured"``, see :mod:`findings`). Version 1 reports are still read (no causes: no findings).

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

from warp_ct.probe.analysis import Analysis, analyze
from warp_ct.probe.cuda import add_cuda_findings, cuda_section
from warp_ct.probe.errors import ReportError
from warp_ct.probe.findings import measured_findings, package_notes
from warp_ct.probe.samples import CacheScan, RunResult, SampleResult, scan_kernel_cache

__all__ = ["SCHEMA_VERSION", "CacheScan", "ProbeReport", "RunResult", "SampleResult", "load_report", "scan_kernel_cache"]

SCHEMA_VERSION = 2
READABLE_SCHEMA_VERSIONS = (1, 2)


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
        self._findings: list[dict[str, Any]] | None = None

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
    def analysis(self) -> Analysis:
        if self._analysis is None:
            analysis = analyze(self.samples)
            # Costs inside Warp or a package that no line of the user's changes: notes (the
            # analysis cannot import findings, which reads its module identities).
            analysis.notes.extend(package_notes(self.ok_samples, analysis.modules))
            self._analysis = analysis
        return self._analysis

    @property
    def findings(self) -> list[dict[str, Any]]:
        """Measured findings (lint JSON items plus ``"origin": "measured"``), see :mod:`findings`."""
        if self._findings is None:
            self._findings = measured_findings(self.ok_samples, self.analysis.modules, self.cwd)
            self._findings = add_cuda_findings(self._findings, self.ok_samples, self.cwd)
        return self._findings

    def to_json_dict(self) -> dict[str, Any]:
        analysis = self.analysis
        data = {
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
            "findings": self.findings,
        }
        cuda = cuda_section(self.samples)
        if cuda is not None:
            data["cuda"] = cuda  # --cuda-arch: CUDA builds through NVRTC, over samples
        return data

    @classmethod
    def from_json_dict(cls, data: Any) -> ProbeReport:
        """Rebuild a report from :meth:`to_json_dict` output; raises :class:`ReportError`."""
        if not isinstance(data, dict) or "schema_version" not in data:
            raise ReportError("not a warp-ct probe report (no schema_version)")
        version = data["schema_version"]
        if version not in READABLE_SCHEMA_VERSIONS:
            raise ReportError(
                f"probe report schema version {version} is not supported (this warp-ct reads "
                f"{', '.join(str(v) for v in READABLE_SCHEMA_VERSIONS)})"
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


MEASURE_REPORT = "a report written by `warp-ct probe measure --json`"


def read_report_json(path: str | os.PathLike[str], expected: str = MEASURE_REPORT) -> Any:
    """The JSON of a report or ledger file; a missing file or one that is not JSON raises
    :class:`ReportError` saying what ``expected`` file was wanted."""
    import json

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise ReportError(f"cannot read report {path}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise ReportError(f"{path} is a binary file, not JSON: expected {expected}") from None
    try:
        return json.loads(text)
    except ValueError as error:
        stripped = text.lstrip()
        if not stripped:
            what = "an empty file,"
        elif stripped[:1] == "<":
            what = "an HTML or XML file,"
        elif isinstance(error, json.JSONDecodeError):
            what = f"not JSON (line {error.lineno} column {error.colno}: {error.msg}), so it is"
        else:
            what = f"not JSON ({error}), so it is"
        raise ReportError(f"{path} is {what} not {expected}") from None


def document_kind(data: Any) -> str | None:
    """What a JSON document that is not a probe report is, in words; None when it may be one."""
    if not isinstance(data, dict):
        return f"a JSON {'array' if isinstance(data, list) else type(data).__name__.replace('str', 'string')}"
    if data.get("kind") == "warp-ct-levers":
        return "a `probe levers` ledger (which compares each lever with its own baseline already)"
    if "sarif" in str(data.get("$schema", "")).lower() or ("runs" in data and "version" in data):
        return "a SARIF file (lint findings)"
    if "findings" in data and "unexplained" in data:
        return "a `warp-ct confirm` result"
    if "findings" in data and not ("samples" in data and "command" in data):  # a report has measured findings too
        return "a `warp-ct lint` JSON report (findings)"
    if "verdict" in data and "topology_differences" in data:
        return "a `probe compare` result"
    if "samples" not in data or "command" not in data:
        return "a JSON object without the `samples` and `command` of a probe report"
    return None


def load_report(path: str | os.PathLike[str]) -> ProbeReport:
    """Read a JSON report file; a missing, malformed or other kind of file raises :class:`ReportError`."""
    data = read_report_json(path)
    kind = document_kind(data)
    if kind is not None:
        raise ReportError(f"{path} is {kind}, not {MEASURE_REPORT}")
    return ProbeReport.from_json_dict(data)
