"""Applying fixes to text: non-overlapping edits, one fix per finding, never a broken file."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from warp_ct.analyzer.model import Finding, Fix, TextEdit
from warp_ct.analyzer.positions import LINE_BREAK_RE as _LINE_END_RE
from warp_ct.analyzer.syntax import parse_text


@dataclass
class FixOutcome:
    text: str
    applied: list[Finding]
    skipped: list[Finding]  # overlapped another fix, or would not parse


def detect_newline(text: str) -> str:
    """The file's line ending (its first one; ``\\n`` for a file without any)."""
    match = _LINE_END_RE.search(text)
    return match.group(0) if match else "\n"


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(m.end() for m in _LINE_END_RE.finditer(text))
    return starts


def _offset(text: str, starts: list[int], line0: int, character: int) -> int:
    if line0 >= len(starts):
        return len(text)
    start = starts[line0]
    end = starts[line0 + 1] if line0 + 1 < len(starts) else len(text)
    return min(start + character, end)


def apply_edits(text: str, edits: Iterable[TextEdit], *, newline: str | None = None) -> str:
    """Apply edits given in one coordinate space (the original text). Raises on overlap.

    Line breaks in inserted text are written as ``newline`` (default: the file's own), so a
    CRLF file stays CRLF.
    """
    newline = newline or detect_newline(text)
    starts = _line_starts(text)
    spans = []
    for edit in edits:
        start = _offset(text, starts, edit.range.start.line, edit.range.start.character)
        end = _offset(text, starts, edit.range.end.line, edit.range.end.character)
        new_text = edit.new_text
        if newline != "\n" and "\n" in new_text:
            new_text = new_text.replace("\r\n", "\n").replace("\n", newline)
        spans.append((start, max(start, end), new_text))
    spans.sort(key=lambda s: (s[0], s[1]))
    for (_s1, e1, _), (s2, _e2, _) in zip(spans, spans[1:]):
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


def parses(text: str) -> bool:
    """Whether ``text`` is valid Python (what a fix must never break), read as the analyzer
    reads it: on Python 3.11 a file with 3.12 syntax (PEP 695 type parameters and aliases)
    parses through ``parse_text``'s rewrite, as it did when its findings were computed;
    with plain ``ast.parse`` every fix to such a file was refused while its findings were
    shown fixable."""
    try:
        parse_text(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


_parses = parses  # backwards-compatible private name


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
    newline = detect_newline(text)
    for finding in sorted(findings, key=lambda f: f.sort_key):
        fix = choose_fix(finding, unsafe)
        if fix is None:
            continue
        candidate = taken + list(fix.edits)
        try:
            new_text = apply_edits(text, candidate, newline=newline)
        except ValueError:
            skipped.append(finding)
            continue
        if not parses(new_text):
            skipped.append(finding)
            continue
        taken = candidate
        current = new_text
        applied.append(finding)
    return FixOutcome(current, applied, skipped)
