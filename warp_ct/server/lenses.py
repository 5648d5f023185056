"""Measured evidence placed where the code is: code lenses and Information diagnostics above
the kernels of each measured module, and the probe report kept for ``confirm``.

Built from a probe report's module identities: each module lists its kernels with the
source file and (1-based) definition line, how often it was built and how long it took.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types

from warp_ct.server.diagnostics import measured_diagnostic
from warp_ct.server.folders import normalize_path
from warp_ct.server.positions import Converter

OPEN_REPORT_COMMAND = "warp-ct.openMeasureReport"

# A module is "expensive" when it takes at least this share of all cold module work and
# at least this many milliseconds.
EXPENSIVE_SHARE = 0.3
EXPENSIVE_MS = 500.0


@dataclass
class KernelMark:
    line0: int  # 0-based line of the kernel definition (decorator line)
    kernel: str
    module: str
    lens: str  # e.g. "built 3× · 2.41 s cold"
    problems: list[str] = field(default_factory=list)  # measured problems, one sentence each
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class MeasuredState:
    report: Any = None  # warp_ct.probe.report.ProbeReport of the last successful measure
    ledger: Any = None  # warp_ct.probe.levers.Ledger when that measure was `measureLevers`
    marks: dict[str, list[KernelMark]] = field(default_factory=dict)  # normalized path -> marks
    summary_path: str | None = None
    html_path: str | None = None

    def marks_for(self, path: str) -> list[KernelMark]:
        return self.marks.get(normalize_path(path), [])

    def diagnostics_for(self, path: str, conv: Converter) -> list[types.Diagnostic]:
        out = []
        for mark in self.marks_for(path):
            if mark.problems and mark.line0 < len(conv.lines):
                message = f"measured: {' '.join(mark.problems)}"
                out.append(measured_diagnostic(mark.line0, message, conv, mark.data))
        return out

    def lenses_for(self, path: str, conv: Converter) -> list[types.CodeLens]:
        lenses = []
        for mark in self.marks_for(path):
            if mark.line0 >= len(conv.lines):
                continue
            rng = types.Range(
                start=types.Position(line=mark.line0, character=0),
                end=types.Position(line=mark.line0, character=0),
            )
            command = types.Command(
                title=mark.lens,
                command=OPEN_REPORT_COMMAND if self.summary_path else "",
                arguments=[self.summary_path] if self.summary_path else None,
            )
            lenses.append(types.CodeLens(range=rng, command=command, data={"module": mark.module, "kernel": mark.kernel}))
        return lenses


def _builds(module: Any) -> int:
    return max(int(getattr(module, "builds", 0) or 0), len(getattr(module, "hashes", ()) or ()), 1)


def lens_title(module: Any) -> str:
    seconds = (module.ms or 0.0) / 1000.0
    title = f"built {_builds(module)}× · {seconds:.2f} s cold"
    if len(module.kernels) > 1:
        title += f" · module {module.name} ({len(module.kernels)} kernels)"
    return title


def build_marks(report: Any) -> dict[str, list[KernelMark]]:
    """Kernel marks per source file (normalized path) from a probe report."""
    analysis = report.analysis
    total_ms = sum(m.ms for m in analysis.modules) or 0.0
    problems_by_module: dict[str, list[str]] = {}
    for diagnosis in analysis.diagnoses:
        if not diagnosis.problem:
            continue
        for name in diagnosis.modules:
            problems_by_module.setdefault(name, []).append(f"{diagnosis.title}. {diagnosis.message}")
    marks: dict[str, list[KernelMark]] = {}
    for module in analysis.modules:
        problems = list(problems_by_module.get(module.name, ()))
        if total_ms and module.ms >= EXPENSIVE_MS and module.ms >= EXPENSIVE_SHARE * total_ms and len(analysis.modules) > 1:
            problems.append(
                f"Module `{module.name}` took {module.ms / 1000.0:.2f} s of {total_ms / 1000.0:.2f} s of cold module work "
                f"({100.0 * module.ms / total_ms:.0f}%)."
            )
        data = {
            "module": module.name,
            "builds": _builds(module),
            "hashes": list(module.hashes),
            "blockDims": list(module.block_dims),
            "ms": module.ms,
        }
        for kernel in module.kernels:
            if not kernel.file or not kernel.line:
                continue
            file = kernel.file if os.path.isabs(kernel.file) else os.path.join(report.cwd or "", kernel.file)
            mark = KernelMark(
                line0=max(int(kernel.line) - 1, 0),
                kernel=kernel.key,
                module=module.name,
                lens=lens_title(module),
                problems=problems,
                data={**data, "kernel": kernel.key},
            )
            bucket = marks.setdefault(normalize_path(file), [])
            if not any(m.line0 == mark.line0 and m.module == mark.module for m in bucket):
                bucket.append(mark)
    return marks
