"""SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

One run; ``tool.driver.rules`` lists every rule (stable ``ruleIndex`` by code) with short
and full descriptions, markdown help and ``helpUri``; each result has a ``ruleId``, a
level, a message and a location whose URI is relative to ``%SRCROOT%`` (the working
directory, given in ``originalUriBaseIds``). Regions are 1-based; columns count Unicode
code points (``columnKind``), and ``endColumn`` is the column after the last character.
Fixes become SARIF ``fixes``; notes (skipped files) become tool execution notifications.
"""

from __future__ import annotations

import json
import os
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from warp_ct import __version__
from warp_ct.analyzer.model import Finding, Fix, Range, Severity
from warp_ct.output.report import Report
from warp_ct.output.rules import all_rule_infos

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/warp-ct/warp-ct"
SRCROOT = "%SRCROOT%"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note", Severity.HINT: "note"}


def _artifact_location(path: str) -> dict[str, str]:
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(PurePosixPath(path.replace(os.sep, "/")).as_posix()), "uriBaseId": SRCROOT}


def _region(rng: Range) -> dict[str, int]:
    return {
        "startLine": rng.start.line + 1,
        "startColumn": rng.start.character + 1,
        "endLine": rng.end.line + 1,
        "endColumn": rng.end.character + 1,
    }


def _fix(path: str, fix: Fix) -> dict[str, object]:
    return {
        "description": {"text": fix.title + ("" if fix.is_safe else " (unsafe)")},
        "artifactChanges": [
            {
                "artifactLocation": _artifact_location(path),
                "replacements": [
                    {"deletedRegion": _region(edit.range), "insertedContent": {"text": edit.new_text}}
                    for edit in fix.edits
                ],
            }
        ],
    }


def _rule_descriptor(info) -> dict[str, object]:
    help_markdown = info.markdown
    return {
        "id": info.code,
        "name": info.name,
        "shortDescription": {"text": info.summary},
        "fullDescription": {"text": f"{info.summary}.", "markdown": info.docs},
        "help": {"text": f"{info.summary}. See {info.url}", "markdown": help_markdown},
        "helpUri": info.url,
        "defaultConfiguration": {"level": LEVELS[info.severity]},
        "properties": {"tags": ["warp", "compile-time"] if not info.meta else ["warp-ct"]},
    }


def _result(finding: Finding, index: dict[str, int]) -> dict[str, object]:
    result: dict[str, object] = {
        "ruleId": finding.rule,
        "level": LEVELS[finding.severity],
        "message": {"text": finding.message},
        "locations": [
            {"physicalLocation": {"artifactLocation": _artifact_location(finding.path), "region": _region(finding.range)}}
        ],
    }
    if finding.rule in index:
        result["ruleIndex"] = index[finding.rule]
    if finding.fixes:
        result["fixes"] = [_fix(finding.path, fix) for fix in finding.fixes]
    if finding.evidence:
        result["properties"] = {"evidence": [e.to_dict() for e in finding.evidence]}
    return result


def document(report: Report, srcroot: str | None = None) -> dict[str, object]:
    infos = list(all_rule_infos())
    index = {info.code: i for i, info in enumerate(infos)}
    root = srcroot or os.getcwd()
    root_uri = Path(os.path.abspath(root)).as_uri().rstrip("/") + "/"
    notifications = [
        {
            "level": note.level,
            "message": {"text": note.message},
            "locations": [{"physicalLocation": {"artifactLocation": _artifact_location(note.path)}}],
        }
        for note in report.notes
    ]
    invocation: dict[str, object] = {"executionSuccessful": True}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "warp-ct",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": [_rule_descriptor(info) for info in infos],
                    }
                },
                "invocations": [invocation],
                "originalUriBaseIds": {SRCROOT: {"uri": root_uri}},
                "columnKind": "unicodeCodePoints",
                "results": [_result(f, index) for f in report.findings],
            }
        ],
    }


def render(report: Report, color: bool = False) -> str:
    return json.dumps(document(report), indent=2, ensure_ascii=False) + "\n"
