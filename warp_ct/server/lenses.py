"""Measured evidence placed where the code is: code lenses and Information diagnostics above
the kernels of each measured module, the report's measured findings as diagnostics with
source ``warp-ct (measured)``, and the probe report kept for ``confirm``.

Built from a probe report's module identities: each module lists its kernels with the
source file and (1-based) definition line, how often it was built and how long it took;
and from its measured findings (lint's JSON items plus ``"origin": "measured"``, see
:mod:`warp_ct.probe.findings`): why a module was built again and at which user line.

Both are kept until the next measurement, so the static re-lint of every keystroke
publishes them again. A measured finding remembers the text of its line: after an edit it
follows that line when it moved (the nearest line with the same text) and is dropped
when the line is gone.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types

from warp_ct.probe.analysis import shown_module_name, user_module_name
from warp_ct.probe.findings import measured_key, read_lines
from warp_ct.server.diagnostics import measured_diagnostic, measured_finding_diagnostic
from warp_ct.server.folders import normalize_path
from warp_ct.server.positions import Converter

OPEN_REPORT_COMMAND = "warp-ct.openMeasureReport"

# How far a measured finding's line may have moved since the measurement (lines).
FOLLOW_LINES = 50
# Lens reasons shown before "+N more".
LENS_REASONS = 2

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
    # The other kernels the same problems are about: (normalized path, 0-based line, what);
    # a problem is one diagnostic, at its first kernel, pointing at the others.
    related: list[tuple[str, int, str]] = field(default_factory=list)


@dataclass
class MeasuredFinding:
    """One measured finding of the report, placed in a file (normalized absolute path)."""

    path: str
    line0: int
    character: int
    end_character: int
    text: str | None  # the line's text when measured (None: the file could not be read)
    item: dict[str, Any]  # the report's finding (lint JSON shape, "origin": "measured")

    def place(self, conv: Converter) -> int | None:
        """The finding's line in the text as it is now, or None when its line is gone."""
        if self.text is None or conv.line(self.line0) == self.text:
            return self.line0 if self.line0 < len(conv.lines) else None
        wanted = self.text.strip()
        if not wanted:
            return None
        for delta in range(1, FOLLOW_LINES + 1):
            for line0 in (self.line0 - delta, self.line0 + delta):
                if 0 <= line0 < len(conv.lines) and conv.lines[line0].strip() == wanted:
                    return line0
        return None


@dataclass
class MeasuredState:
    report: Any = None  # warp_ct.probe.report.ProbeReport of the last successful measure
    ledger: Any = None  # warp_ct.probe.levers.Ledger when that measure was `measureLevers`
    marks: dict[str, list[KernelMark]] = field(default_factory=dict)  # normalized path -> marks
    findings: dict[str, list[MeasuredFinding]] = field(default_factory=dict)  # normalized path -> findings
    summary_path: str | None = None
    html_path: str | None = None
    # Measured findings (measured_key) that a static finding in another file stands for, as the
    # join of the whole workspace found them after the measurement: not shown on their own
    # (a pair within one file is joined again on every edit, see WarpCtServer.join_measured).
    twinned_elsewhere: frozenset = frozenset()

    def marks_for(self, path: str) -> list[KernelMark]:
        return self.marks.get(normalize_path(path), [])

    def findings_for(self, path: str) -> list[MeasuredFinding]:
        return self.findings.get(normalize_path(path), [])

    def paths(self) -> set[str]:
        """Every file the measurement points at (kernels and measured findings)."""
        return set(self.marks) | set(self.findings)

    def placed(self, path: str, conv: Converter) -> dict[tuple[str, str, int, str], int | None]:
        """Where each measured finding of ``path`` is in the text as it is now (1-based line,
        None when its line is gone), by ``measured_key``: the join with the static findings
        pairs them where they are, not where they were when measured."""
        out: dict[tuple[str, str, int, str], int | None] = {}
        for found in self.findings_for(path):
            line0 = found.place(conv)
            out[measured_key(found.item)] = None if line0 is None else line0 + 1
        return out

    def diagnostics_for(self, path: str, conv: Converter,
                        skip: frozenset[tuple[str, str, int, str]] = frozenset()) -> list[types.Diagnostic]:  # fmt: skip
        """The measurement's own diagnostics for ``path``; ``skip``: the measured findings a
        static finding stands for (``confirm``'s join): that diagnostic carries their figures,
        so they are not shown a second time."""
        out = []
        for mark in self.marks_for(path):
            if mark.problems and mark.line0 < len(conv.lines):
                message = f"measured: {' '.join(mark.problems)}"
                out.append(measured_diagnostic(mark.line0, message, conv, mark.data, mark.related))
        for found in self.findings_for(path):
            if skip and measured_key(found.item) in skip:
                continue
            line0 = found.place(conv)
            if line0 is None:
                continue
            if line0 == found.line0:
                start, end = found.character, found.end_character
            else:  # the line moved: same text, same columns relative to its indentation
                text = conv.line(line0)
                start, end = len(text) - len(text.lstrip()), len(text.rstrip())
            out.append(measured_finding_diagnostic(found.item, line0, start, end, conv))
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
        title += f" · module {user_module_name(module)} ({len(module.kernels)} kernels)"
    return title


def build_findings(report: Any) -> dict[str, list[MeasuredFinding]]:
    """The report's measured findings per source file (normalized absolute path)."""
    out: dict[str, list[MeasuredFinding]] = {}
    lines: dict[str, list[str] | None] = {}
    for item in getattr(report, "findings", None) or []:
        try:
            path = item["path"]
            start = item["range"]["start"]
            end = item["range"]["end"]
        except (KeyError, TypeError):
            continue
        if not path:
            continue
        full = path if os.path.isabs(path) else os.path.join(report.cwd or "", path)
        text = read_lines(full, lines)
        line0 = int(start["line"])
        found = MeasuredFinding(
            path=normalize_path(full),
            line0=line0,
            character=int(start["character"]),
            end_character=int(end["character"]) if int(end["line"]) == line0 else int(start["character"]),
            text=text[line0] if text is not None and 0 <= line0 < len(text) else None,
            item=item,
        )
        out.setdefault(found.path, []).append(found)
    return out


REASONS = {
    "WCT006": "options changed",
    "WCT007": "kernel added",
    "WCT009": "new block_dim",
}


def _reason(item: dict[str, Any], kernel_path: str) -> str | None:
    """'options changed at line 12' (or 'at tuning.py:10' when in another file)."""
    what = REASONS.get(item.get("code", ""))
    if what is None:
        return None
    message = item.get("message", "")
    if item.get("code") == "WCT007":
        if "generic kernel" in message:
            what = "new generic instance"
        elif "function `" in message:
            what = "function added"
        elif "struct `" in message:
            what = "struct added"
    line = int(item["range"]["start"]["line"]) + 1
    return f"{what} at line {line}" if normalize_path(item["_abs_path"]) == kernel_path else (
        f"{what} at {os.path.basename(item['_abs_path'])}:{line}")  # fmt: skip


def _reasons_by_module(report: Any) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for item in getattr(report, "findings", None) or []:
        evidence = (item.get("evidence") or [{}])[0]
        module = evidence.get("module")
        if module and item.get("code") in REASONS and item.get("path"):
            path = item["path"] if os.path.isabs(item["path"]) else os.path.join(report.cwd or "", item["path"])
            out.setdefault(module, []).append({**item, "_abs_path": path})
    return out


def lens_with_reasons(title: str, items: list[dict[str, Any]], kernel_path: str) -> str:
    reasons: list[str] = []
    for item in items:
        reason = _reason(item, kernel_path)
        if reason and reason not in reasons:
            reasons.append(reason)
    if not reasons:
        return title
    shown = ", ".join(reasons[:LENS_REASONS])
    more = f" +{len(reasons) - LENS_REASONS} more" if len(reasons) > LENS_REASONS else ""
    return f"{title} · {shown}{more}"


def build_marks(report: Any, explained: frozenset[tuple[str, str]] = frozenset()) -> dict[str, list[KernelMark]]:
    """Kernel marks per source file (normalized path) from a probe report. ``explained``:
    (diagnosis code, module) of the measured problems a measured finding explains
    (``confirm.explained_by_measured``): that finding's diagnostic says it, the kernels' marks
    do not say it again (their lens still counts the builds)."""
    analysis = report.analysis
    reasons = _reasons_by_module(report)
    total_ms = sum(m.ms for m in analysis.modules) or 0.0
    problems_by_module: dict[str, list[str]] = {}
    for diagnosis in analysis.diagnoses:
        if not diagnosis.problem:
            continue
        for name in diagnosis.modules:
            if (diagnosis.code, name) in explained:
                continue
            problems_by_module.setdefault(name, []).append(f"{diagnosis.title}. {diagnosis.message}")
    marks: dict[str, list[KernelMark]] = {}
    for module in analysis.modules:
        problems = list(problems_by_module.get(module.name, ()))
        if total_ms and module.ms >= EXPENSIVE_MS and module.ms >= EXPENSIVE_SHARE * total_ms and len(analysis.modules) > 1:
            problems.append(
                f"Module {shown_module_name(module)} took {module.ms / 1000.0:.2f} s of {total_ms / 1000.0:.2f} s of cold module work "
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
                lens=lens_with_reasons(lens_title(module), reasons.get(module.name, []), normalize_path(file)),
                problems=problems,
                data={**data, "kernel": kernel.key},
            )
            bucket = marks.setdefault(normalize_path(file), [])
            if not any(m.line0 == mark.line0 and m.module == mark.module for m in bucket):
                bucket.append(mark)
    _one_mark_per_problem(marks, {m.name: m for m in analysis.modules})
    return marks


def _one_mark_per_problem(marks: dict[str, list[KernelMark]], modules: dict[str, Any]) -> None:
    """One problem, one diagnostic: a problem about several kernels (a module's kernels, "2
    modules hold a single kernel") stays on its first kernel (by file and line), which points at
    the others (``related``); the others keep their lens and drop the sentence."""
    first: dict[str, KernelMark] = {}
    for path in sorted(marks):
        for mark in sorted(marks[path], key=lambda m: m.line0):
            kept = []
            for problem in mark.problems:
                owner = first.get(problem)
                if owner is None:
                    first[problem] = mark
                    kept.append(problem)
                    continue
                module = modules.get(mark.module)
                what = f"module `{user_module_name(module) if module is not None else mark.module}`, kernel `{mark.kernel}`"
                if (path, mark.line0, what) not in owner.related:
                    owner.related.append((path, mark.line0, what))
            mark.problems = kept
