"""``warp-ct confirm``: join static findings with what the probe measured.

The only place where the analyzer and the probe meet. For each finding we find the
measured modules it is about, then attach :class:`~warp_ct.analyzer.model.Evidence`:

* *which modules*: modules whose kernels were defined in the finding's file (the probe
  records each kernel's source file and line), narrowed to the kernels on or named by the
  finding's line when possible; else the Warp module named after the file's Python module
  (``pkg.stages``, ``__main__`` for the measured script). Rules with process-wide effect
  (late global options, a destroyed cache) fall back to every measured module.
* *confirmed or not*: each rule names the mechanism it predicts (hash churn, block_dim
  spread, a one-kernel module, a warm run that rebuilt, backward code nobody launched).
  When the measurement shows it, the summary says ``confirmed: …``; otherwise it says
  ``measured: …`` with the facts, and the finding stays as the linter reported it.

Measured problems (probe diagnoses) that no finding's rule explains are listed separately:
they are the probe's job (granular modules, LTO, hashes that change per process, …).

Given a levers ledger (``probe levers --json``) instead of a report, its baseline is the
report, and each finding whose fix is one of the measured levers also gets that lever's
figure: a WCT010 finding on module ``pkg.solver`` reads "measured: backward code off for
this module, -62% compile elapsed (improved), 3 samples".
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from warp_ct.analyzer.model import Evidence, Finding
from warp_ct.probe.analysis import ModuleIdentity, normalize_kernel_key
from warp_ct.probe.levers import MODULE_BACKWARD_PREFIX, Ledger, LeverResult, is_ledger_json
from warp_ct.probe.errors import ReportError
from warp_ct.probe.report import ProbeReport, document_kind, read_report_json

# Rules whose cause is a module hashed again (a late option never arrives, so WCT001,
# WCT004 and WCT014 change no hash: they are not credited with churn).
_CHURN_RULES = {"WCT003", "WCT006", "WCT007"}
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


def python_module_name(path: str | os.PathLike[str]) -> str:
    """Dotted module name of a source file, walking up through packages (``__init__.py``)."""
    file = Path(path).resolve()
    parts = [] if file.stem == "__init__" else [file.stem]
    directory = file.parent
    while (directory / "__init__.py").exists():
        parts.insert(0, directory.name)
        directory = directory.parent
    return ".".join(parts)


def _resolve(path: str, base: str | None) -> str:
    candidate = Path(path)
    if not candidate.is_absolute() and base and not candidate.exists():
        candidate = Path(base) / candidate
    return str(candidate.resolve())


def _script_paths(report: ProbeReport) -> set[str]:
    """Files the measured command ran as ``__main__`` (``python script.py``)."""
    return {_resolve(arg, report.cwd) for arg in report.command if arg.endswith(".py")}


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
        return named or in_file

    # A finding reported where the user must change the code (a helper's call site, a
    # factory default in another file) names the modules it is about in its message.
    mentioned = [m for m in modules if f"`{m.name}`" in finding.message]
    if mentioned:
        return mentioned
    names = {python_module_name(path)}
    if path in _script_paths(report):
        names.add("__main__")
    by_name = [m for m in modules if m.name in names]
    if by_name:
        return by_name
    # Kernels named in the message (``square``, ``make_scale()``'s kernel) wherever they live.
    named = [m for m in modules if any(f"`{normalize_kernel_key(k.key)}`" in finding.message for k in m.kernels)]
    if named:
        return named
    return list(modules) if finding.rule in _PROCESS_WIDE_RULES else []


def _mentions(kernel_key: str, text: str) -> bool:
    import re

    return bool(kernel_key) and re.search(rf"\b{re.escape(kernel_key)}\b", text) is not None


def _facts(module: ModuleIdentity) -> str:
    hashes = len(module.hashes)
    text = f"module `{module.name}` built {max(module.builds, 1)}× with {hashes} hash{'es' if hashes != 1 else ''}"
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
        return f"module `{module.name}` rebuilt {module.warm_builds}× in the warm run, {module.warm_ms / 1000.0:.2f} s"
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
    return lines[line] if 0 <= line < len(lines) else ""


def attach_evidence(findings: Sequence[Finding], report: ProbeReport) -> tuple[list[Finding], list[str]]:
    """Attach measured evidence to findings; also return measured problems no finding explains.

    Returns ``(findings, unexplained)``: the findings in the same order (those with a
    matching measured module carry one :class:`Evidence` per module, ``confirmed: …`` when
    the measurement shows the rule's mechanism), and one sentence per measured problem
    whose modules no finding of a fitting rule confirmed.
    """
    lines_cache: dict[str, list[str]] = {}
    out: list[Finding] = []
    confirmed: set[tuple[str, str]] = set()  # (rule, module name)
    for finding in findings:
        source_line = _source_line(_resolve(finding.path, report.cwd), finding.range.start.line, lines_cache)
        modules = modules_for_finding(finding, report, source_line)
        evidence = []
        for module in modules[:10]:
            reason = _confirms(finding.rule, module)
            if reason is not None:
                confirmed.add((finding.rule, module.name))
                evidence.append(_evidence(module, f"confirmed: {reason}"))
            elif finding.rule not in _PROCESS_WIDE_RULES or len(modules) == 1:
                evidence.append(_evidence(module, f"measured: {_facts(module)}; the predicted cost was not observed"))
        out.append(finding.with_evidence(*evidence) if evidence else finding)

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
            where = ", ".join(f"`{m}`" for m in missing if m) or "the command"
            first = f" ({diagnosis.evidence[0]})" if diagnosis.evidence else ""
            unexplained.append(f"{diagnosis.title} — {where}{first}: no lint finding explains it")
    return out, unexplained


def default_paths(report: ProbeReport) -> list[str]:
    """The measured kernels' source files that exist and live outside site-packages."""
    files: list[str] = []
    for module in report.analysis.modules:
        for kernel in module.kernels:
            if kernel.file and os.path.isfile(kernel.file) and "site-packages" not in kernel.file:
                if kernel.file not in files:
                    files.append(kernel.file)
    return files or [report.cwd or "."]


def render_confirm_text(findings: Iterable[Finding], unexplained: Sequence[str]) -> str:
    lines = []
    for finding in findings:
        lines.append(f"{finding.path}:{finding.line}:{finding.column}: {finding.rule} {finding.message}")
        lines += [f"    {e.summary}" for e in finding.evidence]
    if unexplained:
        lines += ["", "Measured problems no rule explains:"] + [f"  - {u}" for u in unexplained]
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


def run_confirm(report_path: str, paths: Sequence[str], *, output_format: str = "text") -> int:
    """CLI body: 0 nothing to report, 1 findings or unexplained problems, 2 via ProbeError."""
    from warp_ct.analyzer import lint_paths

    report, ledger = load_measurement(report_path)
    targets = list(paths) or default_paths(report)
    results = lint_paths(targets)
    findings = sorted((f for result in results for f in result.findings), key=lambda f: f.sort_key)
    with_evidence, unexplained = attach_evidence(findings, report)
    if ledger is not None:
        with_evidence = attach_lever_figures(with_evidence, ledger)
    notes = [note for result in results for note in result.notes]
    if output_format == "json":
        payload = {
            "report": report_path,
            "findings": [f.to_dict() for f in with_evidence],
            "unexplained": unexplained,
            "notes": notes,
        }
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
    else:
        sys.stdout.write(render_confirm_text(with_evidence, unexplained))
        for note in notes:
            print(f"note: {note}", file=sys.stderr)
    return 1 if with_evidence or unexplained else 0
