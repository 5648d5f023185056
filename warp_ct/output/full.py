"""ruff's full format: the finding, its location, the source line with an underline, and
the fix title as ``help:``.

Everything taken from the linted files (the message, the path, the source lines, fix titles
and measured facts that quote them) is escaped (``escape.printable``), so that a file cannot
forge or hide lines of the report; the underline is measured on the line as shown."""

from __future__ import annotations

from warp_ct.analyzer.model import Finding
from warp_ct.output.escape import printable
from warp_ct.output.report import Report
from warp_ct.output.style import paint
from warp_ct.output.summary import summary_line

CONTEXT = 1  # lines shown before and after the finding's first line
MAX_SHOWN_WIDTH = 200


def _widened(text: str) -> str:
    """Source text as shown: tabs as four spaces, unprintable characters escaped."""
    return printable(text.replace("\t", "    "))


def _shown(line: str) -> str:
    line = _widened(line)
    return line if len(line) <= MAX_SHOWN_WIDTH else line[:MAX_SHOWN_WIDTH] + "…"


def _underline(line: str, start: int, end: int) -> str:
    """Spaces up to ``start``, then ``^`` to ``end``, in the columns of the shown line."""
    column = len(_widened(line[:start]))
    if column >= MAX_SHOWN_WIDTH:
        return " " * MAX_SHOWN_WIDTH + "^"
    width = len(_widened(line[start:end])) or 1
    return " " * column + "^" * max(1, min(width, MAX_SHOWN_WIDTH - column + 1))


def render_finding(report: Report, finding: Finding, color: bool) -> str:
    fixable = report.is_fixable(finding)
    head = paint(finding.rule, "bold", "red", color=color)
    if fixable:
        head += " " + paint("[*]", "cyan", color=color)
    out = [f"{head} {paint(printable(finding.message), 'bold', color=color)}"]
    out.append(f" {paint('-->', 'blue', color=color)} {printable(finding.path)}:{finding.line}:{finding.column}")
    lines = report.source_lines(finding.path)
    first = finding.range.start.line
    if 0 <= first < len(lines):
        last_shown = min(len(lines) - 1, first + CONTEXT)
        begin = max(0, first - CONTEXT)
        width = len(str(last_shown + 1))
        gutter = paint(" " * width + " |", "blue", color=color)
        out.append(gutter)
        for line0 in range(begin, last_shown + 1):
            number = paint(f"{line0 + 1:>{width}} |", "blue", color=color)
            out.append(f"{number} {_shown(lines[line0])}".rstrip())
            if line0 == first:
                text = lines[line0]
                start = min(finding.range.start.character, len(text))
                end = finding.range.end.character if finding.range.end.line == first else len(text)
                mark = _underline(text, start, max(end, start))
                out.append(f"{gutter} {paint(mark, 'red', 'bold', color=color)} {paint(finding.rule, 'red', color=color)}")
        out.append(gutter)
    for fix in finding.fixes[:1]:
        suffix = "" if fix.is_safe else " (unsafe: --unsafe-fixes)"
        out.append(f"{paint('help', 'cyan', 'bold', color=color)}: {printable(fix.title)}{suffix}")
    for evidence in finding.evidence:
        out.append(f"{paint('measured', 'green', 'bold', color=color)}: {printable(evidence.summary)}")
    return "\n".join(out)


def render(report: Report, color: bool = False) -> str:
    blocks = [render_finding(report, f, color) + "\n" for f in report.findings]
    blocks.append(summary_line(report))
    return "\n".join(blocks) + "\n"
