"""``# noqa`` comments: per line (``# noqa``, ``# noqa: WCT003, WCT004``) and per file
(``# warp-ct: noqa`` or ``# warp-ct: noqa: WCT003``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator

from warp_ct.analyzer.model import Finding

# Codes after "noqa:" in flake8's shape; other tools' codes are kept so edits can merge.
_LINE_NOQA_RE = re.compile(r"#\s*noqa(?P<sep>\s*:\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_FILE_NOQA_RE = re.compile(
    r"^\s*#\s*warp-ct:\s*noqa(?:\s*:\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?\s*$",
    re.IGNORECASE | re.MULTILINE,
)
_CODE_SPLIT_RE = re.compile(r"[\s,]+")
_NOQA_WORD_RE = re.compile("noqa", re.IGNORECASE)

ALL = None  # blanket suppression


@dataclass
class NoqaMap:
    file_codes: set[str] | None = field(default_factory=set)  # None: whole file suppressed
    line_codes: dict[int, set[str] | None] = field(default_factory=dict)  # 0-based line -> codes (None: all)

    def suppresses(self, finding: Finding) -> bool:
        if self.file_codes is None or finding.rule in self.file_codes:
            return True
        line = finding.range.start.line
        if line not in self.line_codes:
            return False
        codes = self.line_codes[line]
        return codes is None or finding.rule in codes


def _codes(text: str | None) -> set[str] | None:
    if not text:
        return None
    return {c.upper() for c in _CODE_SPLIT_RE.split(text.strip()) if c}


def parse_noqa(text: str) -> NoqaMap:
    result = NoqaMap()
    lowered = text.lower()
    if "noqa" not in lowered:
        return result
    for match in _FILE_NOQA_RE.finditer(text):
        codes = _codes(match.group("codes"))
        if codes is None:
            result.file_codes = None
            break
        assert result.file_codes is not None
        result.file_codes |= codes
    # Only the lines that mention noqa are read (splitting a whole file into lines costs
    # more than the rest of this function).
    line0, counted_to, line_end = 0, 0, -1
    for at in _mentions(text, lowered):
        if at > line_end:  # the first mention on a new line
            start = max(text.rfind("\n", 0, at), text.rfind("\r", 0, at)) + 1
            line_end = _line_end(text, at)
            line0 += _breaks(text, counted_to, start)
            counted_to = start
            line = text[start:line_end]
            if "#" in line and not _FILE_NOQA_RE.match(line):
                match = _LINE_NOQA_RE.search(line)
                if match:
                    result.line_codes[line0] = _codes(match.group("codes"))
    return result


def _mentions(text: str, lowered: str) -> Iterator[int]:
    """Offsets in ``text`` where "noqa" starts, in any case."""
    if len(lowered) != len(text):  # lower() changed some lengths ("İ" is two characters lowered)
        yield from (match.start() for match in _NOQA_WORD_RE.finditer(text))
        return
    at = lowered.find("noqa")
    while at != -1:
        yield at
        at = lowered.find("noqa", at + 4)


def _line_end(text: str, at: int) -> int:
    """Index of the line break ending the line ``at`` is on (or the text's length)."""
    ends = [end for end in (text.find("\n", at), text.find("\r", at)) if end != -1]
    return min(ends) if ends else len(text)


def _breaks(text: str, start: int, end: int) -> int:
    """Line breaks in ``text[start:end]`` as Python counts them (``\r\n`` is one)."""
    newlines = text.count("\n", start, end)
    returns = text.count("\r", start, end)
    return newlines + returns - (text.count("\r\n", start, end) if returns else 0)


def add_code_to_line(line: str, code: str) -> str:
    """The line with ``code`` suppressed, merging into an existing ``# noqa:`` comment.

    ``line`` excludes its newline. A blanket ``# noqa`` already covers everything.
    """
    match = _LINE_NOQA_RE.search(line)
    if match is None:
        return f"{line.rstrip()}  # noqa: {code}"
    codes_text = match.group("codes")
    if codes_text is None:
        return line
    codes = _CODE_SPLIT_RE.split(codes_text.strip())
    if code.upper() in (c.upper() for c in codes):
        return line
    merged = ", ".join([*codes, code])
    return line[: match.start("codes")] + merged + line[match.end("codes") :]


def noqa_codes_at(line: str) -> list[tuple[str, int, int]]:
    """(code, start, end) of each code in the line's ``# noqa:`` comment, for hover."""
    match = _LINE_NOQA_RE.search(line) or _FILE_NOQA_RE.search(line)
    if not match or not match.group("codes"):
        return []
    out = []
    for m in re.finditer(r"[A-Z]+[0-9]+", line[match.start("codes") : match.end("codes")], re.IGNORECASE):
        start = match.start("codes") + m.start()
        out.append((m.group(0).upper(), start, start + len(m.group(0))))
    return out
