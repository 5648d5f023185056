"""``warp-ct confirm``: join static findings with what the probe measured.

The only place where the analyzer and the probe meet. Two sides: the *static* findings of
linting the given paths, and the *measured* findings of the report (the bootstrap's
attributed causes, see :mod:`warp_ct.probe.findings`). They are joined by rule and place:

* *twins*: a measured finding of the same rule (a measured WCT007 "kernel added after load"
  also twins a static WCT003 "kernel per call", a measured WCT010 a static WCT013) in the
  same file within ±2 lines, or about the same kernel (module + kernel key, the kernel found
  by its source file and line in the report, never by the module name alone);
* each static finding gets a status: ``confirmed`` (a twin, or the rule's mechanism measured
  on the modules it is about), ``not-measurable`` (GPU-only mechanisms on a run without a
  CUDA device: WCT009's block_dim spread, CUDA-only options), ``not-exercised`` (its file was
  never imported or run), else ``not-observed`` (exercised, the predicted cost not seen);
* measured findings in the linted paths without a static twin are what *the static analyzer
  missed*; measured findings in files outside the linted paths are left out (counted).

Module evidence (the facts attached to each finding) comes from the modules it is about:

* *which modules*: modules whose kernels were defined in the finding's file (the probe
  records each kernel's source file and line), narrowed to the kernels on or named by the
  finding's line when possible; else modules named in the message or after the file's Python
  module, but only when their kernels come from the finding's own project (a module name is
  not an identity: every script's module is ``__main__``). Rules with process-wide effect
  (late global options, a destroyed cache) fall back to the project's measured modules when
  the finding's file ran.
* *confirmed or not*: each rule names the mechanism it predicts (hash churn, block_dim
  spread, a one-kernel module, a warm run that rebuilt, backward code nobody launched).
  When the measurement shows it, the summary says ``confirmed: …``; otherwise it says
  ``measured: …`` with the facts, and the finding stays as the linter reported it.

One problem, one line (and in an editor, one diagnostic): a static finding and its measured
twins are shown once, as the static finding carrying the twins' figures (``confirmed: measured at
app.py:11: built 1× …``; the module figures of a module a twin is about are not repeated);
a measured finding stands on its own only where no static finding matched it, and names a
script's module as the user knows it (``app`` (run as ``__main__``)). :func:`join` is the only
join: ``confirm``'s output, the language server's diagnostics (:func:`join_for_editor`, which
also says which measured findings not to show again) and its kernel marks
(:func:`explained_by_measured`) use it.

Measured problems (probe diagnoses) that no finding's rule explains are listed separately:
they are the probe's job (granular modules, LTO, hashes that change per process, …).

Given a levers ledger (``probe levers --json``) instead of a report, its baseline is the
report, and each finding whose fix is one of the measured levers also gets that lever's
figure: a WCT010 finding on module ``pkg.solver`` reads "measured: backward code off for
this module, -62% compile elapsed (improved), 3 samples".
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from warp_ct.analyzer.model import Evidence, Finding
from warp_ct.probe.analysis import (ModuleIdentity, normalize_kernel_key, python_module_name, shown_module_name,
                                   user_module_name)
from warp_ct.probe.findings import measured_key
from warp_ct.probe.levers import MODULE_BACKWARD_PREFIX, Ledger, LeverResult, is_ledger_json
from warp_ct.probe.errors import ReportError
from warp_ct.probe.report import ProbeReport, document_kind, read_report_json

# Rules whose cause is a module hashed again (WCT015's: with a module variable it captures
# changed). A late option never arrives, so WCT001, WCT004 and WCT014 change no hash: they are
# not credited with churn.
_CHURN_RULES = {"WCT003", "WCT006", "WCT007", "WCT015"}
_SPREAD_RULES = {"WCT009"}
_ONE_KERNEL_RULES = {"WCT002", "WCT013"}
_CACHE_RULES = {"WCT008", "WCT012"}
_BACKWARD_RULES = {"WCT010", "WCT013"}
# Rules whose cause acts on every module the process loads, not only the file's own.
_PROCESS_WIDE_RULES = {"WCT001", "WCT008", "WCT011", "WCT012"}
# Probe diagnoses that are problems a rule could explain, and the rules that would.
_DIAGNOSIS_RULES = {
    "hash-churn": _CHURN_RULES,
    "block-dim-spread": _SPREAD_RULES,
    "one-kernel-modules": _ONE_KERNEL_RULES,
    "cache-not-reused": _CACHE_RULES,
    "hashes-differ-between-samples": set(),
    "lto-artifacts": set(),
}


@functools.lru_cache(maxsize=8192)
def _resolve(path: str, base: str | None) -> str:
    candidate = Path(path)
    if not candidate.is_absolute() and base and not candidate.exists():
        candidate = Path(base) / candidate
    return str(candidate.resolve())


def _script_paths(report: ProbeReport) -> set[str]:
    """Files the measured command ran as ``__main__`` (``python script.py``)."""
    return {_resolve(arg, report.cwd) for arg in report.command if arg.endswith(".py")}


def project_dir(path: str | os.PathLike[str]) -> str:
    """The folder a file's top package (or the script itself) lives in: its project."""
    directory = Path(path).resolve().parent
    while (directory / "__init__.py").exists():
        directory = directory.parent
    return str(directory)


def _in_project(module: ModuleIdentity, project: str, base: str | None) -> bool:
    return any(k.file and _inside(_resolve(k.file, base), project) for k in module.kernels)


def _other_script(module: ModuleIdentity, path: str, base: str | None) -> bool:
    """``module`` is (or warp.fem made it for) a script run as ``__main__`` other than ``path``."""
    if module.name != "__main__" and not module.name.startswith("__main__."):
        return False
    return not any(k.file and _resolve(k.file, base) == path for k in module.kernels)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def modules_for_finding(finding: Finding, report: ProbeReport, source_line: str = "") -> list[ModuleIdentity]:
    """The measured modules a finding is about (see the module docstring for the order)."""
    modules = report.analysis.modules
    path = _resolve(finding.path, report.cwd)

    in_file = [
        m for m in modules if any(k.file and _resolve(k.file, report.cwd) == path for k in m.kernels)
    ]
    if in_file:
        first, last = finding.range.start.line + 1, finding.range.end.line + 1
        named = [
            m
            for m in in_file
            if any(
                (k.line is not None and first - 3 <= k.line <= last + 3)
                or _mentions(normalize_kernel_key(k.key), finding.message + " " + source_line)
                for k in m.kernels
                if k.file and _resolve(k.file, report.cwd) == path
            )
        ]
        if not named:
            # A warp.fem call builds its integrand's kernel in a module named after the file's
            # (``__main__.mass_form_1a2b``), from warp.fem's own source: named by the call.
            prefixes = tuple(m.name + "." for m in in_file)
            named = [
                m for m in modules
                if m.name.startswith(prefixes)
                and any(_mentions(_FEM_SUFFIX.sub("", k.key), finding.message + " " + source_line) for k in m.kernels)
            ]
        return named or in_file

    # Beyond the file itself, only modules whose kernels come from the finding's project: a
    # module name alone is not an identity (every measured script is `__main__`).
    project = project_dir(path)
    # Another script run as ``__main__`` is no module of this file's: scripts beside each other
    # (``example_a.py``, ``example_b.py``) import nothing of each other, though their kernels
    # may have the same names.
    own = [m for m in modules if _in_project(m, project, report.cwd) and not _other_script(m, path, report.cwd)]
    # A finding reported where the user must change the code (a helper's call site, a
    # factory default in another file) names the modules it is about in its message.
    mentioned = [m for m in own if f"`{m.name}`" in finding.message]
    if mentioned:
        return mentioned
    by_name = [m for m in own if m.name == python_module_name(path)]
    if by_name:
        return by_name
    # Kernels named in the message (``square``, ``make_scale()``'s kernel) within the project.
    named = [m for m in own if any(f"`{normalize_kernel_key(k.key)}`" in finding.message for k in m.kernels)]
    if named:
        return named
    if finding.rule in _PROCESS_WIDE_RULES and path in exercised_files(report):
        return own
    return []


# warp.fem's kernel keys end in a hash of what they were specialized for (``mass_form_1a2b3c4d``).
_FEM_SUFFIX = re.compile(r"_[0-9a-f]{8}$")


def _mentions(kernel_key: str, text: str) -> bool:
    return bool(kernel_key) and re.search(rf"\b{re.escape(kernel_key)}\b", text) is not None


def _facts(module: ModuleIdentity) -> str:
    hashes = len(module.hashes)
    text = f"module {shown_module_name(module)} built {max(module.builds, 1)}× with {hashes} hash{'es' if hashes != 1 else ''}"
    if module.block_dim_spread:
        text += f" at block_dims {', '.join(str(b) for b in module.block_dims)}"
    return text + f", {module.ms / 1000.0:.2f} s"


def _confirms(rule: str, module: ModuleIdentity) -> str | None:
    """Why the measurement confirms ``rule`` for ``module``, or None."""
    if rule in _CHURN_RULES and module.hash_churn:
        return _facts(module)
    if rule in _SPREAD_RULES and module.block_dim_spread:
        return _facts(module)
    if rule in _ONE_KERNEL_RULES and len(module.kernels) == 1 and module.builds:
        kind = 'module="unique"' if module.is_unique_module else "one kernel"
        return f"{_facts(module)} for one kernel ({kind})"
    if rule in _CACHE_RULES and module.warm_builds:
        return f"module {shown_module_name(module)} rebuilt {module.warm_builds}× in the warm run, {module.warm_ms / 1000.0:.2f} s"
    if rule in _BACKWARD_RULES and module.options.get("enable_backward") and not module.adjoint_launched:
        return f"{_facts(module)}; built with enable_backward=True, no adjoint launch measured"
    return None


def _evidence(module: ModuleIdentity, summary: str) -> Evidence:
    return Evidence(
        summary=summary,
        module=module.name,
        builds=module.builds,
        distinct_hashes=len(module.hashes),
        block_dims=tuple(b for b in module.block_dims if isinstance(b, int)),
        milliseconds=round(module.ms, 3),
    )


def _source_line(path: str, line: int, cache: dict[str, list[str]]) -> str:
    if path not in cache:
        try:
            cache[path] = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            cache[path] = []
    lines = cache[path]
    text = lines[line] if 0 <= line < len(lines) else ""
    if text.rstrip().endswith("(") and line + 1 < len(lines):
        # ``out = fem.integrate(`` with its first argument, the kernel or integrand, on the
        # next line (how formatters break a long call): that line names what it is about.
        text += " " + lines[line + 1].strip()
    return text


# Rules whose mechanism exists only on CUDA devices (every CPU launch runs at block_dim 1), and
# options or settings that only CUDA builds read: not measurable on a run without a CUDA device.
GPU_ONLY_RULES = {"WCT009"}
_CUDA_ONLY_OPTIONS = {"lineinfo", "compile_time_trace", "cuda_output"}
_CUDA_ONLY_CACHE = ("CUDA_CACHE_DISABLE", "CUDA_CACHE_PATH", "clear_lto_cache")
# A measured finding of rule K twins static findings of these rules (same place or kernel): a
# kernel added to a loaded module is what a kernel defined per call costs (WCT003), and backward
# code built for nothing in a unique module is what missing the file's options costs (WCT013).
TWIN_RULES = {"WCT007": {"WCT007", "WCT003"}, "WCT010": {"WCT010", "WCT013"}}
PLACE_TOLERANCE = 2  # lines

STATUS_COUNT = {"confirmed": "confirmed", "not-observed": "not observed", "not-exercised": "not exercised",
                "not-measurable": "not measurable on this device"}
STATUS_TEXT = {
    "confirmed": "confirmed",
    "not-observed": "exercised by this run, the predicted cost was not observed",
    "not-exercised": "not exercised by this run",
    "not-measurable": "not measurable on this device",
}


@dataclass(frozen=True)
class MeasuredFinding:
    """One of the report's measured findings (``report.findings``), placed for the join."""

    data: dict[str, Any]
    rule: str
    file: str  # resolved path
    line: int  # 1-based
    module: str | None
    kernel: str | None
    also_at: tuple[tuple[str, int], ...] = ()  # other (file, line) the same cause runs through

    @classmethod
    def from_report(cls, data: dict[str, Any], base: str | None, line: int | None = None) -> MeasuredFinding:
        """``line``: where the finding's line is now (an editor's text moved since the run)."""
        evidence = (data.get("evidence") or [{}])[0]
        kernel = data.get("kernel")
        also = tuple((_resolve(str(a["path"]), base), int(a["line"])) for a in data.get("also_at") or ())
        return cls(data, str(data["code"]), _resolve(str(data["path"]), base),
                   int(data["location"]["line"]) if line is None else line,
                   evidence.get("module"), normalize_kernel_key(kernel) if kernel else None, also)  # fmt: skip

    @property
    def key(self) -> tuple[str, str, int, str]:
        return measured_key(self.data)

    @property
    def where(self) -> str:
        return f"{self.data['path']}:{self.line}"


@dataclass
class Joined:
    """A static finding (with evidence attached), its status and its measured twins."""

    finding: Finding
    status: str
    reason: str = ""
    twins: list[MeasuredFinding] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data = self.finding.to_dict()
        data["status"] = self.status
        data["status_reason"] = self.reason
        data["measured"] = [
            {"code": t.rule, "path": t.data["path"], "line": t.line, "message": t.data["message"]} for t in self.twins
        ]
        return data


@dataclass
class ConfirmResult:
    joined: list[Joined]
    missed: list[MeasuredFinding]  # measured in the linted paths, no static twin
    left_out: int  # measured findings in files outside the linted paths
    unexplained: list[str]  # measured problems (diagnoses) no finding explains
    # measured findings (measured_key) a static finding in another file stands for
    twinned_across_files: frozenset[tuple[str, str, int, str]] = frozenset()

    @property
    def findings(self) -> list[Finding]:
        return [j.finding for j in self.joined]

    @property
    def twinned(self) -> frozenset[tuple[str, str, int, str]]:
        """The measured findings (their :func:`~warp_ct.probe.findings.measured_key`) that a
        static finding stands for: shown through it, never again on their own."""
        return frozenset(t.key for j in self.joined for t in j.twins)

    def notes(self) -> list[str]:
        if not self.left_out:
            return []
        n = self.left_out
        return [f"{n} measured finding{'s' if n != 1 else ''} in files outside the linted paths left out"]


def exercised_files(report: ProbeReport) -> set[str]:
    """Files the measured run imported or ran code of (resolved paths)."""
    base = report.cwd
    files = set(_script_paths(report))
    for sample in report.ok_samples:
        run = sample.cold
        files.update(_resolve(f, base) for f in run.user_files)
        files.update(_resolve(k.file, base) for load in run.loads for k in load.kernels if k.file)
        for cause in run.causes:
            files.update(_resolve(f.file, base) for f in (*cause.frames, *cause.load_frames))
        files.update(_resolve(a.file, base) for a in run.config_assignments if a.file)
        for removal in run.cache_removals:
            files.update(_resolve(f.file, base) for f in (*removal.frames, *(removal.atexit_frames or ())))
    return files


def _on_cuda(report: ProbeReport) -> bool:
    return any(str(m.device).startswith("cuda") for m in report.analysis.modules)


def _static_kernels(finding: Finding, report: ProbeReport, path: str, source_line: str) -> set[tuple[str, str]]:
    """(module, kernel key) of the kernels a static finding is about: defined within ±2 lines
    of it in its file, or named in its message and defined in its file."""
    first, last = finding.range.start.line + 1, finding.range.end.line + 1
    out = set()
    for module in report.analysis.modules:
        for kernel in module.kernels:
            if not kernel.file or _resolve(kernel.file, report.cwd) != path:
                continue
            key = normalize_kernel_key(kernel.key)
            near = kernel.line is not None and first - PLACE_TOLERANCE <= kernel.line <= last + PLACE_TOLERANCE
            if near or f"`{key}`" in finding.message:
                out.add((module.name, key))
    return out


def _twins(finding: Finding, path: str, kernels: set[tuple[str, str]],
           measured: Sequence[MeasuredFinding]) -> list[MeasuredFinding]:  # fmt: skip
    """Measured findings of a fitting rule about the same kernel, or at the nearest line within
    ±PLACE_TOLERANCE in the same file (two measured causes two lines apart are two places)."""
    line = finding.range.start.line + 1
    by_kernel, by_place = [], []
    for m in measured:
        if finding.rule not in TWIN_RULES.get(m.rule, {m.rule}):
            continue
        distances = [abs(at - line) for file, at in ((m.file, m.line), *m.also_at) if file == path]
        distance = min(distances) if distances else None
        if m.kernel is not None and (m.module or "", m.kernel) in kernels:
            by_kernel.append(m)
        elif distance is not None and distance <= PLACE_TOLERANCE:
            by_place.append((distance, m))
    nearest = min((d for d, _ in by_place), default=None)
    return by_kernel + [m for d, m in by_place if d == nearest]


def _module_named(report: ProbeReport, name: str | None) -> ModuleIdentity | None:
    return next((m for m in report.analysis.modules if m.name == name), None) if name else None


def measured_figures(twin: MeasuredFinding, report: ProbeReport, static_message: str = "") -> str:
    """A measured finding's figures in a few words, for the static finding it confirms (whose
    message already says what the problem is): ``module `app` built 2× with 2 hashes, 0.41 s
    rebuilding``, ``built 1× with backward code nothing used, up to 0.42 s cold``. The module
    goes by the name the user knows (a script's ``__main__`` by its file's module name), and is
    left out when the static message already names it."""
    data = (twin.data.get("evidence") or [{}])[0]
    name = data.get("module")
    module = _module_named(report, name)
    known = user_module_name(module) if module is not None else name
    text = "" if not known or f"`{known}`" in static_message else f"module `{known}` "
    builds, hashes, ms = data.get("builds"), data.get("distinct_hashes"), data.get("milliseconds")
    if isinstance(builds, int) and builds > 0:
        if twin.rule == "WCT008":
            text += f"rebuilt {builds}× in the warm run"
        else:
            several = isinstance(hashes, int) and hashes > 1
            if twin.rule in _BACKWARD_RULES:
                text += f"built {builds}×" + (f" ({hashes} hashes)" if several else "") + " with backward code nothing used"
            else:
                text += f"built {builds}×" + (f" with {hashes} hashes" if several else "")
    if isinstance(ms, (int, float)) and ms > 0:  # 0: its build was counted by another finding
        seconds = f"{ms / 1000.0:.2f} s"
        if data.get("upper_bound"):
            cost = f"up to {seconds} cold"
        elif twin.rule in _CHURN_RULES or twin.rule in _SPREAD_RULES:
            cost = f"{seconds} rebuilding"
        else:
            cost = seconds
        text = f"{text}, {cost}" if text.strip() else cost
    return text.strip() or twin.data["message"]


def _twin_evidence(twin: MeasuredFinding, report: ProbeReport, static_message: str = "") -> Evidence:
    data = (twin.data.get("evidence") or [{}])[0]
    return Evidence(
        summary=f"confirmed: measured at {twin.where}: {measured_figures(twin, report, static_message)}",
        module=data.get("module"),
        builds=data.get("builds"),
        distinct_hashes=data.get("distinct_hashes"),
        block_dims=tuple(data.get("block_dims") or ()),
        milliseconds=data.get("milliseconds"),
    )


def _not_measurable(finding: Finding, report: ProbeReport, source_line: str) -> str | None:
    if _on_cuda(report):
        return None
    if finding.rule in GPU_ONLY_RULES:
        return "a block_dim spread exists only on CUDA devices (every CPU launch runs at block_dim 1); this run had none"
    options = set(re.findall(r"wp\.config\.(\w+)", finding.message + " " + source_line))
    if finding.rule == "WCT001" and options and options <= _CUDA_ONLY_OPTIONS:
        return f"`{sorted(options)[0]}` matters only to CUDA builds; this run had no CUDA device"
    if finding.rule == "WCT008":
        words = [w for w in _CUDA_ONLY_CACHE if w in finding.message or w in source_line]
        if words:
            return f"`{words[0]}` concerns the CUDA caches only; this run had no CUDA device"
    return None


def _within(path: str, roots: Sequence[str] | None) -> bool:
    return roots is None or any(_inside(path, root) for root in roots)


def join(findings: Sequence[Finding], report: ProbeReport, roots: Sequence[str] | None = None,
         placed: Mapping[tuple[str, str, int, str], int | None] | None = None) -> ConfirmResult:  # fmt: skip
    """Join static findings with the report's measurements (see the module docstring).

    ``roots``: the linted files and folders (resolved); measured findings outside them are
    left out and counted. None keeps every measured finding. ``placed``: where measured
    findings are now (:func:`~warp_ct.probe.findings.measured_key` -> 1-based line), for an
    editor whose text moved since the run.

    This is the one join of measured and static findings: ``confirm``'s output, the editor's
    diagnostics (:func:`join_for_editor`) and the measurement summary all use it, so that a
    problem both sides found is shown once: the static finding, carrying the measured figures
    (its twins); a measured finding appears on its own only where no static finding matched.
    """
    lines_cache: dict[str, list[str]] = {}
    placed = placed or {}
    measured_all = []
    for item in report.findings:
        key = measured_key(item)
        if key in placed and placed[key] is None:
            continue  # its line is gone from the editor's text
        measured_all.append(MeasuredFinding.from_report(item, report.cwd, placed.get(key)))
    measured = [m for m in measured_all if _within(m.file, roots)]
    exercised = exercised_files(report)
    joined: list[Joined] = []
    twinned: set[int] = set()
    across: set[tuple[str, str, int, str]] = set()
    confirmed: set[tuple[str, str]] = set()  # (rule, module name)
    for finding in findings:
        path = _resolve(finding.path, report.cwd)
        source_line = _source_line(path, finding.range.start.line, lines_cache)
        twins = _twins(finding, path, _static_kernels(finding, report, path, source_line), measured)
        twinned.update(id(t) for t in twins)
        across.update(t.key for t in twins if t.file != path)
        evidence = [_twin_evidence(t, report, finding.message) for t in twins]
        for twin in twins:
            if twin.module:
                confirmed.add((finding.rule, twin.module))
        modules = modules_for_finding(finding, report, source_line)
        for module in modules[:10]:
            reason = _confirms(finding.rule, module)
            if reason is not None:
                confirmed.add((finding.rule, module.name))
                if any(t.module == module.name for t in twins):
                    continue  # its twin already carries this module's figures: one line, not two
                evidence.append(_evidence(module, f"confirmed: {reason}"))
            elif any(t.module == module.name for t in twins):
                continue
            elif finding.rule not in _PROCESS_WIDE_RULES or len(modules) == 1:
                evidence.append(_evidence(module, f"measured: {_facts(module)}; the predicted cost was not observed"))
        with_evidence = finding.with_evidence(*evidence) if evidence else finding
        if any(e.summary.startswith("confirmed:") for e in evidence):
            status, why = "confirmed", ""
        elif (cuda_only := _not_measurable(finding, report, source_line)) is not None:
            status, why = "not-measurable", cuda_only
        elif not modules and path not in exercised:
            status, why = "not-exercised", "this file was never imported or run by the measured command"
        else:
            status, why = "not-observed", ""
        joined.append(Joined(with_evidence, status, why, twins))

    missed = [m for m in measured if id(m) not in twinned]
    return ConfirmResult(joined, missed, len(measured_all) - len(measured), _unexplained(report, confirmed), frozenset(across))


def _unexplained(report: ProbeReport, confirmed: set[tuple[str, str]]) -> list[str]:
    unexplained: list[str] = []
    for diagnosis in report.analysis.diagnoses:
        rules = _DIAGNOSIS_RULES.get(diagnosis.code)
        if rules is None or not diagnosis.problem:
            continue
        targets = diagnosis.modules or [""]
        missing = [
            name
            for name in targets
            if not any((rule, name) in confirmed for rule in rules)
            and not (name == "" and any(rule in rules for rule, _ in confirmed))
        ]
        if missing:
            shown = {m.name: shown_module_name(m) for m in report.analysis.modules}
            where = ", ".join(shown.get(m, f"`{m}`") for m in missing if m) or "the command"
            first = f" ({diagnosis.evidence[0]})" if diagnosis.evidence else ""
            unexplained.append(f"{diagnosis.title} — {where}{first}: no lint finding explains it")
    return unexplained


def explained_by_measured(report: ProbeReport) -> frozenset[tuple[str, str]]:
    """(diagnosis code, module name) of the measured problems that one of the report's measured
    findings explains (a rebuilt module and the WCT006 that says which line rebuilt it): that
    finding, or the static finding it is joined with, is the problem's one diagnostic, so the
    editor does not say it again on the module's kernels."""
    out = set()
    for diagnosis in report.analysis.diagnoses:
        rules = _DIAGNOSIS_RULES.get(diagnosis.code)
        if not rules or not diagnosis.problem:
            continue
        for item in report.findings:
            if item.get("code") not in rules:
                continue
            evidence = (item.get("evidence") or [{}])[0]
            about = {evidence.get("module"), *(evidence.get("modules") or ())}
            out.update((diagnosis.code, name) for name in diagnosis.modules if name in about)
    return frozenset(out)


def attach_evidence(findings: Sequence[Finding], report: ProbeReport) -> tuple[list[Finding], list[str]]:
    """Attach measured evidence to findings; also return measured problems no finding explains.

    Returns ``(findings, unexplained)``: the findings in the same order (those with a
    measured twin or a matching measured module carry :class:`Evidence`, ``confirmed: …``
    when the measurement shows the rule's mechanism), and one sentence per measured problem
    whose modules no finding of a fitting rule confirmed. :func:`join` has the statuses too.
    """
    result = join(findings, report)
    return result.findings, result.unexplained


def attach_evidence_and_status(findings: Sequence[Finding], report: ProbeReport) -> tuple[list[Finding], list[str]]:
    """:func:`attach_evidence`, and each finding the run did not confirm says what the run said
    about it when its evidence does not already: ``measured: not exercised by this run: …``,
    ``measured: not measurable on this device: …`` (put first: module facts would read as
    "not observed"), ``measured: exercised by this run, the predicted cost was not observed``.
    For editors, where a finding's evidence is all the measurement says about its line."""
    found, _twinned, unexplained = join_for_editor(findings, report)
    return found, unexplained


def join_for_editor(findings: Sequence[Finding], report: ProbeReport, ledger: Ledger | None = None,
                    placed: Mapping[tuple[str, str, int, str], int | None] | None = None,
                    ) -> tuple[list[Finding], frozenset[tuple[str, str, int, str]], list[str]]:  # fmt: skip
    """What an editor shows of a measurement on a file's static findings: ``(findings, twinned,
    unexplained)``. Each finding carries its evidence (a twin's figures: ``confirmed: measured at
    app.py:11: built 1× …``), the status the run gave it when it was not confirmed (see
    :func:`attach_evidence_and_status`) and, given a levers ``ledger``, its lever's figure;
    ``twinned``: the measured findings these findings stand for (their ``measured_key``), which
    the editor does not show again as diagnostics of their own; ``placed``: as for :func:`join`."""
    result = join(findings, report, placed=placed)
    out = []
    for joined in result.joined:
        finding = joined.finding
        if joined.status != "confirmed" and (joined.status == "not-measurable" or not finding.evidence):
            text = STATUS_TEXT[joined.status] + (f": {joined.reason}" if joined.reason else "")
            finding = replace(finding, evidence=(Evidence(summary=f"measured: {text}"), *finding.evidence))
        out.append(finding)
    if ledger is not None:
        out = attach_lever_figures(out, ledger)
    return out, result.twinned, result.unexplained


def default_paths(report: ProbeReport) -> list[str]:
    """The measured kernels' source files that exist and live outside site-packages."""
    files: list[str] = []
    for module in report.analysis.modules:
        for kernel in module.kernels:
            if kernel.file and os.path.isfile(kernel.file) and "site-packages" not in kernel.file:
                if kernel.file not in files:
                    files.append(kernel.file)
    return files or [report.cwd or "."]


def joined_line(item: Joined) -> str:
    """One static finding and what the run said about it, on one line: ``path:line:col: CODE
    [static + measured] message (confirmed: measured at …: figures)``, ``[static]`` without a
    measured twin."""
    finding = item.finding
    details = [e.summary for e in finding.evidence]
    if item.status in ("not-exercised", "not-measurable"):
        details.append(f"{STATUS_TEXT[item.status]}: {item.reason}")
    elif item.status == "not-observed" and not finding.evidence:
        details.append(STATUS_TEXT[item.status])
    sources = "static + measured" if item.twins else "static"
    tail = f" ({'; '.join(details)})" if details else ""
    return f"{finding.path}:{finding.line}:{finding.column}: {finding.rule} [{sources}] {finding.message}{tail}"


def paired_lines(result: ConfirmResult) -> dict[tuple[str, str, int, str], str]:
    """For each measured finding a static finding stands for (by ``measured_key``), that static
    finding's :func:`joined_line`: what the probe's text report prints in its place, so that a
    problem both sides found is printed once, with both sources
    (:func:`warp_ct.probe.text.render_text`'s ``paired``)."""
    out: dict[tuple[str, str, int, str], str] = {}
    for item in result.joined:
        if item.twins:
            line = joined_line(item)
            for twin in item.twins:
                out.setdefault(twin.key, line)
    return out


def render_confirm_text(result: ConfirmResult | Iterable[Finding], unexplained: Sequence[str] = ()) -> str:
    """One line per problem: a static finding with what the run said about it (a measured twin
    is not printed again: the line says ``[static + measured]`` and carries its figures), then
    the measured findings no static finding matched, then the measured problems no rule explains."""
    if not isinstance(result, ConfirmResult):  # plain findings (older callers)
        result = ConfirmResult([Joined(f, "confirmed" if f.evidence else "not-observed") for f in result], [], 0,
                               list(unexplained))  # fmt: skip
    lines = [joined_line(item) for item in result.joined]
    if result.missed:
        lines += ["", "The static analyzer missed (measured, no finding of that rule at that place):"]
        lines += [f"  {m.where}: {m.rule} [measured] {m.data['message']}" for m in result.missed]
    if result.unexplained:
        lines += ["", "Measured problems no rule explains:"] + [f"  - {u}" for u in result.unexplained]
    if result.joined:
        counts = {s: sum(1 for j in result.joined if j.status == s) for s in STATUS_TEXT}
        summary = ", ".join(f"{n} {STATUS_COUNT[s]}" for s, n in counts.items() if n)
        lines += ["", f"{len(result.joined)} finding{'s' if len(result.joined) != 1 else ''}: {summary}"
                  + (f"; {len(result.missed)} missed by the static analyzer" if result.missed else "")]  # fmt: skip
    if not lines:
        lines.append("no findings and no measured problems")
    return "\n".join(lines) + "\n"


# Rules whose fix is a measured lever: rule -> (lever name, how the figure reads).
_LEVER_RULES = {
    "WCT010": ("backward", "backward code off"),
    "WCT013": ("backward", "backward code off"),
    "WCT012": ("precompiled-headers", "precompiled headers back on"),
}
# WCT001 (a late global option) is about whichever option its message names.
_LATE_OPTION_LEVERS = {
    "enable_backward": ("backward", "backward code off"),
    "max_unroll": ("max-unroll", "a lower max_unroll"),
    "lineinfo": ("lineinfo", "lineinfo off"),
    "optimization_level": ("optimization-level", "a lower optimization_level"),
    "mode": ("release-mode", "release mode"),
}


def load_measurement(path: str | os.PathLike[str]) -> tuple[ProbeReport, Ledger | None]:
    """A probe report, or a levers ledger and its baseline report; raises ReportError."""
    expected = "a report written by `warp-ct probe measure --json` or `probe levers --json`"
    data = read_report_json(path, expected)
    if is_ledger_json(data):
        ledger = Ledger.from_json_dict(data)
        return ledger.baseline, ledger
    kind = document_kind(data)
    if kind is not None:
        raise ReportError(f"{path} is {kind}, not {expected}")
    return ProbeReport.from_json_dict(data), None


def _lever_for(finding: Finding) -> tuple[str, str] | None:
    if finding.rule in _LEVER_RULES:
        return _LEVER_RULES[finding.rule]
    if finding.rule == "WCT001":
        for option, lever in _LATE_OPTION_LEVERS.items():
            if _mentions(option, finding.message):
                return lever
    return None


def _lever_figure(result: LeverResult, what: str, scope: str) -> str:
    if result.status != "measured" or result.relative is None:
        reason = result.error or result.plan.not_applicable or result.status
        return f"measured: {what} {scope} was not measured ({reason})"
    samples = f"{result.samples} sample{'s' if result.samples != 1 else ''}"
    text = f"measured: {what} {scope}, {result.relative * 100:+.0f}% {result.metric_label}"
    if result.few_samples and result.verdict == "inconclusive" and result.band_s is not None:
        # Too few samples to tell this change from noise: no verdict to lean on.
        text += f", inconclusive ({samples}): below ±{result.band_s:.2f} s; run `probe levers --samples 3`"
    else:
        text += f" ({result.verdict}), {samples}"
    if result.plan.unsafe:
        text += f"; unsafe here: {result.plan.unsafe}"
    if result.cpu_disagrees:
        text += "; CPU time disagrees (a busy machine?)"
    return text


def attach_lever_figures(findings: Sequence[Finding], ledger: Ledger) -> list[Finding]:
    """Add the figure of the lever each finding's fix amounts to (when the ledger has it)."""
    by_name = {r.name: r for r in ledger.results}
    report = ledger.baseline
    lines_cache: dict[str, list[str]] = {}
    out = []
    for finding in findings:
        lever = _lever_for(finding)
        if lever is None:
            out.append(finding)
            continue
        name, what = lever
        evidence = []
        if name == "backward":
            source_line = _source_line(_resolve(finding.path, report.cwd), finding.range.start.line, lines_cache)
            for module in modules_for_finding(finding, report, source_line)[:10]:
                own = by_name.get(MODULE_BACKWARD_PREFIX + module.name)
                if own is not None:
                    evidence.append(_evidence(module, _lever_figure(own, what, "for this module")))
                elif "backward" in by_name and module.name in by_name["backward"].plan.targets:
                    evidence.append(_evidence(module, _lever_figure(by_name["backward"], what, "for the whole process")))
        elif name in by_name:
            evidence.append(Evidence(summary=_lever_figure(by_name[name], what, "for the whole process")))
        out.append(finding.with_evidence(*evidence) if evidence else finding)
    return out


def linted_roots(targets: Sequence[str]) -> list[str]:
    return [str(Path(t).resolve()) for t in targets]


def run_confirm(report_path: str, paths: Sequence[str], *, output_format: str = "text") -> int:
    """CLI body: 0 nothing to report, 1 findings, missed or unexplained problems, 2 via ProbeError."""
    from warp_ct.analyzer import lint_paths

    report, ledger = load_measurement(report_path)
    if not report.ok_samples:  # the command failed in every sample: no run to join with
        raise ReportError(f"{report_path}: the report has no successful sample (the command failed in every run)")
    targets = list(paths) or default_paths(report)
    results = lint_paths(targets)
    findings = sorted((f for result in results for f in result.findings), key=lambda f: f.sort_key)
    result = join(findings, report, linted_roots(targets))
    if ledger is not None:
        with_figures = attach_lever_figures(result.findings, ledger)
        for item, finding in zip(result.joined, with_figures):
            item.finding = finding
    notes = [note for r in results for note in r.notes] + result.notes()
    if output_format == "json":
        payload = {
            "report": report_path,
            "findings": [item.to_dict() for item in result.joined],
            "missed": [dict(m.data) for m in result.missed],
            "left_out": result.left_out,
            "statuses": {s: sum(1 for j in result.joined if j.status == s) for s in STATUS_TEXT},
            "unexplained": result.unexplained,
            "notes": notes,
        }
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
    else:
        sys.stdout.write(render_confirm_text(result))
        for note in notes:
            print(f"note: {note}", file=sys.stderr)
    return 1 if result.joined or result.unexplained or result.missed else 0
