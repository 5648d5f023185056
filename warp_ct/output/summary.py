"""The closing line of the human formats: "Found N findings (K fixable with --fix).", and
how many files could not be checked, and why."""

from __future__ import annotations

from warp_ct.analyzer.model import SYNTAX_ERROR, UNCHECKED_REASONS, UNREADABLE_FOLDER
from warp_ct.output.report import Report


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def unchecked_phrase(report: Report) -> str | None:
    """ "2 files could not be checked: 1 unreadable, 1 too large; 1 folder could not be
    read", or None when everything was checked."""
    counts = {r: report.unchecked[r] for r in UNCHECKED_REASONS if report.unchecked.get(r)}
    folders = counts.pop(UNREADABLE_FOLDER, 0)
    clauses = []
    if counts:
        parts = [plural(n, r) if r == SYNTAX_ERROR else f"{n} {r}" for r, n in counts.items()]
        clauses.append(f"{plural(sum(counts.values()), 'file')} could not be checked: {', '.join(parts)}")
    if folders:
        clauses.append(f"{plural(folders, 'folder')} could not be read")
    return "; ".join(clauses) or None


def closing_line(report: Report, found: str | None) -> str:
    """``found`` ("Found 3 findings") and the files not checked, as one sentence; "All
    checks passed!" only when there is neither."""
    unchecked = unchecked_phrase(report)
    if found and unchecked:
        return f"{found}; {unchecked}."
    if found or unchecked:
        return f"{found or unchecked}."
    return "All checks passed!"


def summary_line(report: Report) -> str:
    total = len(report.findings)
    if report.fixed:  # --fix changed something
        return closing_line(report, f"Fixed {plural(report.fixed, 'finding')} ({total} remaining)")
    if total == 0:
        return closing_line(report, None)
    extras = []
    if report.fixable_count:
        extras.append(f"{report.fixable_count} fixable with --fix")
    if report.unsafe_only_count:
        extras.append(f"{report.unsafe_only_count} more with --fix --unsafe-fixes")
    tail = f" ({'; '.join(extras)})" if extras else ""
    return closing_line(report, f"Found {plural(total, 'finding')}{tail}")
