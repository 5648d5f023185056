"""Findings -> LSP diagnostics (push model), in the client's position units."""

from __future__ import annotations

from typing import Iterable

from lsprotocol import types
from pygls.uris import from_fs_path

from warp_ct.analyzer.model import Finding, Severity
from warp_ct.analyzer.rules import get_rule
from warp_ct.server.positions import Converter

SOURCE = "warp-ct"
MEASURED_SOURCE = "warp-ct (measured)"
MEASURED_CODE = "WCT-measured"

SEVERITY_NAMES = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}

SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}


def docs_url(code: str) -> str | None:
    rule = get_rule(code)
    return rule.docs_url() if rule is not None else None


def _evidence_text(summary: str) -> str:
    # warp_ct.confirm already says "confirmed: ..." or "measured: ..."
    return summary if summary.startswith(("confirmed", "measured")) else f"confirmed: {summary}"


def is_confirmed(finding: Finding) -> bool:
    return any(_evidence_text(e.summary).startswith("confirmed") for e in finding.evidence)


def message_of(finding: Finding) -> str:
    if not finding.evidence:
        return finding.message
    return f"{finding.message} ({'; '.join(_evidence_text(e.summary) for e in finding.evidence)})"


def to_diagnostic(finding: Finding, conv: Converter) -> types.Diagnostic:
    href = docs_url(finding.rule)
    data: dict = {"fixes": [fix.to_dict() for fix in finding.fixes], "name": finding.name}
    if finding.evidence:
        data["evidence"] = [e.to_dict() for e in finding.evidence]
        data["confirmed"] = is_confirmed(finding)
    return types.Diagnostic(
        range=conv.range(finding.range),
        message=message_of(finding),
        severity=SEVERITY.get(finding.severity, types.DiagnosticSeverity.Warning),
        code=finding.rule,
        code_description=types.CodeDescription(href=href) if href else None,
        source=SOURCE,
        data=data,
    )


def to_diagnostics(findings: Iterable[Finding], conv: Converter) -> list[types.Diagnostic]:
    return [to_diagnostic(f, conv) for f in findings]


def measured_diagnostic(line0: int, message: str, conv: Converter, data: dict,
                        related: list[tuple[str, int, str]] | None = None) -> types.Diagnostic:  # fmt: skip
    """An Information diagnostic on a kernel definition line, from a probe measurement;
    ``related``: (path, 0-based line, what) of the other kernels the same problem is about."""
    text = conv.line(line0)
    start = len(text) - len(text.lstrip())
    rng = types.Range(
        start=types.Position(line=line0, character=conv.position_for(line0, start)),
        end=types.Position(line=line0, character=conv.position_for(line0, len(text))),
    )
    return types.Diagnostic(
        range=rng,
        message=message,
        severity=types.DiagnosticSeverity.Information,
        code=MEASURED_CODE,
        source=SOURCE,
        data=data,
        related_information=[
            types.DiagnosticRelatedInformation(
                location=types.Location(uri=from_fs_path(path), range=types.Range(
                    start=types.Position(line=line, character=0), end=types.Position(line=line, character=0))),
                message=what,
            )
            for path, line, what in related
        ] if related else None,
    )


def measured_finding_diagnostic(item: dict, line0: int, start: int, end: int, conv: Converter) -> types.Diagnostic:
    """A measured finding of a probe report (lint JSON shape, ``"origin": "measured"``) as a
    diagnostic with source ``warp-ct (measured)``; ``start``/``end`` are characters of ``line0``."""
    url = item.get("url")
    rng = types.Range(
        start=types.Position(line=line0, character=conv.position_for(line0, start)),
        end=types.Position(line=line0, character=conv.position_for(line0, max(end, start))),
    )
    return types.Diagnostic(
        range=rng,
        message=item.get("message", ""),
        severity=SEVERITY_NAMES.get(item.get("severity", ""), types.DiagnosticSeverity.Warning),
        code=item.get("code"),
        code_description=types.CodeDescription(href=url) if url else None,
        source=MEASURED_SOURCE,
        data={"origin": "measured", "name": item.get("name"), "evidence": item.get("evidence", [])},
    )
