"""``path:line:col: CODE [*] message`` — one line per finding, then a summary line.

Paths and messages are escaped (``escape.printable``): a newline or a terminal control
quoted from the linted file cannot start a line of its own or rewrite the ones shown."""

from __future__ import annotations

from warp_ct.output.escape import printable
from warp_ct.output.report import Report
from warp_ct.output.style import paint
from warp_ct.output.summary import summary_line


def finding_line(report: Report, finding, color: bool) -> str:
    where = paint(f"{printable(finding.path)}:{finding.line}:{finding.column}:", "bold", color=color)
    code = paint(finding.rule, "bold", "red", color=color)
    mark = f" {paint('[*]', 'cyan', color=color)}" if report.is_fixable(finding) else ""
    return f"{where} {code}{mark} {printable(finding.message)}"


def render(report: Report, color: bool = False) -> str:
    lines = [finding_line(report, f, color) for f in report.findings]
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"
