"""Applying fixes to text: non-overlapping edits, one fix per finding, never a broken file."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterable

from warp_ct.analyzer.model import Finding, Fix, TextEdit
from warp_ct.analyzer.positions import LineIndex


@dataclass
class FixOutcome:
    text: str
    applied: list[Finding]
    skipped: list[Finding]  # overlapped another fix, or would not parse


def apply_edits(text: str, edits: Iterable[TextEdit]) -> str:
    """Apply edits given in one coordinate space (the original text). Raises on overlap."""
    index = LineIndex(text)
    spans = []
    for edit in edits:
        start = index.offset(edit.range.start.line, edit.range.start.character)
        end = index.offset(edit.range.end.line, edit.range.end.character)
        spans.append((start, end, edit.new_text))
    spans.sort(key=lambda s: (s[0], s[1]))
    for (s1, e1, _), (s2, _e2, _) in zip(spans, spans[1:]):
        if s2 < e1:
            raise ValueError("overlapping edits")
    out = []
    cursor = 0
    for start, end, new_text in spans:
        out.append(text[cursor:start])
        out.append(new_text)
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def choose_fix(finding: Finding, unsafe: bool) -> Fix | None:
    for fix in finding.fixes:
        if fix.is_safe or unsafe:
            return fix
    return None


def apply_fixes(text: str, findings: Iterable[Finding], *, unsafe: bool = False) -> FixOutcome:
    """Apply the first eligible fix of each finding, in source order, skipping any fix that
    overlaps one already taken or would leave the file unparsable."""
    applied: list[Finding] = []
    skipped: list[Finding] = []
    taken: list[TextEdit] = []
    current = text
    for finding in sorted(findings, key=lambda f: f.sort_key):
        fix = choose_fix(finding, unsafe)
        if fix is None:
            continue
        candidate = taken + list(fix.edits)
        try:
            new_text = apply_edits(text, candidate)
        except ValueError:
            skipped.append(finding)
            continue
        if not _parses(new_text):
            skipped.append(finding)
            continue
        taken = candidate
        current = new_text
        applied.append(finding)
    return FixOutcome(current, applied, skipped)
