"""``--statistics``: findings counted per rule, most frequent first (ruff's shape)::

    3	WCT005	[*] module-options-without-unique
    1	WCT003	[ ] per-call-kernel
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass

from warp_ct.output.report import Report
from warp_ct.output.summary import closing_line, plural


@dataclass(frozen=True)
class Row:
    code: str
    name: str
    count: int
    fixable: int  # how many of them --fix would fix

    def to_dict(self) -> dict[str, object]:
        return {"code": self.code, "name": self.name, "count": self.count, "fixable": self.fixable > 0,
                "fixable_count": self.fixable}  # fmt: skip


def rows(report: Report) -> list[Row]:
    counts: Counter[str] = Counter()
    fixable: Counter[str] = Counter()
    names: dict[str, str] = {}
    for finding in report.findings:
        counts[finding.rule] += 1
        names.setdefault(finding.rule, finding.name)
        if report.is_fixable(finding):
            fixable[finding.rule] += 1
    ordered = sorted(counts, key=lambda code: (-counts[code], code))
    return [Row(code, names[code], counts[code], fixable[code]) for code in ordered]


def render_text(report: Report) -> str:
    table = rows(report)
    if not table:
        return closing_line(report, None) + "\n"
    count_width = max(len(str(r.count)) for r in table)
    code_width = max(len(r.code) for r in table)
    any_fixable = any(r.fixable for r in table)
    lines = []
    for r in table:
        mark = ("[*] " if r.fixable else "[ ] ") if any_fixable else ""
        lines.append(f"{r.count:>{count_width}}\t{r.code:<{code_width}}\t{mark}{r.name}")
    total = len(report.findings)
    fixable = report.fixable_count
    tail = f" ({fixable} fixable with --fix)" if fixable else ""
    lines.append(closing_line(report, f"Found {plural(total, 'finding')}{tail}"))
    return "\n".join(lines) + "\n"


def render_json(report: Report) -> str:
    return json.dumps([r.to_dict() for r in rows(report)], indent=2) + "\n"


def render(report: Report, fmt: str) -> str:
    return render_json(report) if fmt == "json" else render_text(report)
