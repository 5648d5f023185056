"""ruff's full format: the finding, its location, the source line with an underline, and
the fix title as ``help:``."""

from __future__ import annotations

from warp_ct.analyzer.model import Finding
from warp_ct.output.report import Report
from warp_ct.output.style import paint
from warp_ct.output.summary import summary_line

CONTEXT = 1  # lines shown before and after the finding's first line
MAX_SHOWN_WIDTH = 200


def _shown(line: str) -> str:
    line = line.replace("\t", "    ")
    return line if len(line) <= MAX_SHOWN_WIDTH else line[:MAX_SHOWN_WIDTH] + "…"


def _underline(line: str, start: int, end: int) -> str:
    """Spaces up to ``start`` (tabs widened like the shown line), then ``^`` to ``end``."""
    prefix = "".join("    " if ch == "\t" else " " for ch in line[:start])
    if start >= MAX_SHOWN_WIDTH:
        return prefix[:MAX_SHOWN_WIDTH] + "^"
    width = len(line[start:end].replace("\t", "    ")) or 1
    return prefix + "^" * max(1, min(width, MAX_SHOWN_WIDTH - start + 1))


def render_finding(report: Report, finding: Finding, color: bool) -> str:
    fixable = report.is_fixable(finding)
    head = paint(finding.rule, "bold", "red", color=color)
    if fixable:
        head += " " + paint("[*]", "cyan", color=color)
    out = [f"{head} {paint(finding.message, 'bold', color=color)}"]
    out.append(f" {paint('-->', 'blue', color=color)} {finding.path}:{finding.line}:{finding.column}")
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
        out.append(f"{paint('help', 'cyan', 'bold', color=color)}: {fix.title}{suffix}")
    for evidence in finding.evidence:
        out.append(f"{paint('measured', 'green', 'bold', color=color)}: {evidence.summary}")
    return "\n".join(out)


def render(report: Report, color: bool = False) -> str:
    blocks = [render_finding(report, f, color) + "\n" for f in report.findings]
    blocks.append(summary_line(report))
    return "\n".join(blocks) + "\n"
