"""The closing lines of the human formats: "Found N findings (K fixable with --fix)."."""

from __future__ import annotations

from warp_ct.output.report import Report


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary_line(report: Report) -> str:
    total = len(report.findings)
    if report.fixed:  # --fix changed something
        return f"Fixed {plural(report.fixed, 'finding')} ({total} remaining)."
    if total == 0:
        return "All checks passed!"
    extras = []
    if report.fixable_count:
        extras.append(f"{report.fixable_count} fixable with --fix")
    if report.unsafe_only_count:
        extras.append(f"{report.unsafe_only_count} more with --fix --unsafe-fixes")
    tail = f" ({'; '.join(extras)})" if extras else ""
    return f"Found {plural(total, 'finding')}{tail}."
