"""Column conversion: ast/astroid report UTF-8 *byte* columns, the data model uses str indices."""

from __future__ import annotations

import re

# Python's own line breaks: the lines ast (and so every Range) counts. str.splitlines()
# also breaks at form feeds and other separators, which would shift every later line.
LINE_BREAK_RE = re.compile(r"\r\n|\r|\n")


# Characters ``str.splitlines`` also breaks at, and Python's tokenizer does not.
_OTHER_BREAKS_RE = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def split_lines(text: str, keepends: bool = False) -> list[str]:
    """Lines as Python's tokenizer counts them (``\\n``, ``\\r\\n``, ``\\r`` only)."""
    if not keepends:
        return LINE_BREAK_RE.split(text)
    if not _OTHER_BREAKS_RE.search(text):
        return text.splitlines(keepends=True) or [""]  # the same lines, split in C
    lines, start = [], 0
    for match in LINE_BREAK_RE.finditer(text):
        lines.append(text[start : match.end()])
        start = match.end()
    if start < len(text) or not lines:
        lines.append(text[start:])
    return lines


class LineIndex:
    """Maps (1-based line, byte column) from ast/astroid to 0-based (line, character).

    Built once per file; conversion is O(1) for ASCII lines and O(line length) otherwise.
    """

    __slots__ = ("lines", "_ascii", "_starts")

    def __init__(self, text: str) -> None:
        self.lines = split_lines(text, keepends=True)
        self._ascii = [line.isascii() for line in self.lines]
        self._starts: list[int] | None = None

    def line_text(self, line0: int) -> str:
        if 0 <= line0 < len(self.lines):
            return self.lines[line0]
        return ""

    def char_from_byte(self, line0: int, byte_col: int) -> int:
        if byte_col <= 0:
            return 0
        if line0 >= len(self.lines) or self._ascii[line0]:
            return byte_col
        raw = self.lines[line0].encode("utf-8")
        return len(raw[:byte_col].decode("utf-8", errors="ignore"))

    def byte_from_char(self, line0: int, char_col: int) -> int:
        if line0 >= len(self.lines) or self._ascii[line0]:
            return char_col
        return len(self.lines[line0][:char_col].encode("utf-8"))

    def offset(self, line0: int, char_col: int) -> int:
        """Absolute str offset of a (line, character) position, for applying edits."""
        if self._starts is None:
            starts, total = [], 0
            for line in self.lines:
                starts.append(total)
                total += len(line)
            starts.append(total)
            self._starts = starts
        if line0 >= len(self.lines):
            return self._starts[-1]
        return self._starts[line0] + char_col
