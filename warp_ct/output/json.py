"""``--output-format json``: a versioned document, deterministic (sorted findings, sorted keys).

Shape (schema_version 1)::

    {"schema_version": 1,
     "tool": {"name": "warp-ct", "version": "..."},
     "findings": [Finding.to_dict() + {"location": {"line", "column"}, "end_location": {...},
                  "fixable": bool, "url": str}],
     "notes": [{"path", "message", "level": "note" or "error"}],
     "summary": {"findings": N, "fixable": K, "fixed": F or null}}

``range`` is 0-based line/character (the data model); ``location``/``end_location`` are
the same positions 1-based, as shown to people. Characters are Unicode code points.
"""

from __future__ import annotations

import json

from warp_ct import __version__
from warp_ct.analyzer.model import Finding
from warp_ct.output.report import Report

SCHEMA_VERSION = 1


def finding_dict(report: Report, finding: Finding) -> dict[str, object]:
    from warp_ct.analyzer.rules.base import DOCS_URL

    data = finding.to_dict()
    data["location"] = {"line": finding.range.start.line + 1, "column": finding.range.start.character + 1}
    data["end_location"] = {"line": finding.range.end.line + 1, "column": finding.range.end.character + 1}
    data["fixable"] = report.is_fixable(finding)
    data["url"] = DOCS_URL.format(code=finding.rule)
    return data


def document(report: Report) -> dict[str, object]:
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "warp-ct", "version": __version__},
        "findings": [finding_dict(report, f) for f in report.findings],
        "notes": [n.to_dict() for n in report.notes],
        "summary": {"findings": len(report.findings), "fixable": report.fixable_count, "fixed": report.fixed},
    }


def render(report: Report, color: bool = False) -> str:
    return json.dumps(document(report), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
