"""GitHub Actions workflow commands: one ``::error``/``::warning``/``::notice`` per finding.

Escaping follows GitHub's rules: in the message ``%``, CR and LF become ``%25``, ``%0D``,
``%0A``; in properties also ``:`` and ``,`` become ``%3A`` and ``%2C``. Other control and
bidirectional formatting characters quoted from the linted files are written as escapes
(``escape.printable_but_line_breaks``): the log viewer would act on an ANSI escape. ``col`` and
``endColumn`` are left out when a finding spans lines (GitHub ignores them then).
GitHub shows only 10 annotations of each level per step: pair this with SARIF upload.
"""

from __future__ import annotations

from warp_ct.analyzer.model import Finding, Severity
from warp_ct.output.escape import printable_but_line_breaks
from warp_ct.output.report import Report

LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice", Severity.HINT: "notice"}


def escape_data(text: str) -> str:
    return printable_but_line_breaks(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding) -> str:
    start, end = finding.range.start, finding.range.end
    props = [("file", finding.path), ("line", str(start.line + 1))]
    if start.line == end.line:
        props.append(("col", str(start.character + 1)))
    props.append(("endLine", str(end.line + 1)))
    if start.line == end.line:
        props.append(("endColumn", str(end.character + 1)))
    title = f"{finding.rule} ({finding.name})" if finding.name else finding.rule
    props.append(("title", title))
    joined = ",".join(f"{key}={escape_property(value)}" for key, value in props)
    return f"::{LEVELS[finding.severity]} {joined}::{escape_data(finding.message)}"


def render(report: Report, color: bool = False) -> str:
    return "".join(annotation(f) + "\n" for f in report.findings)
