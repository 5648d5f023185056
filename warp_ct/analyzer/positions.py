"""Column conversion: ast/astroid report UTF-8 *byte* columns, the data model uses str indices."""

from __future__ import annotations


class LineIndex:
    """Maps (1-based line, byte column) from ast/astroid to 0-based (line, character).

    Built once per file; conversion is O(1) for ASCII lines and O(line length) otherwise.
    """

    __slots__ = ("lines", "_ascii")

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines(keepends=True) or [""]
        self._ascii = [line.isascii() for line in self.lines]

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
        total = sum(len(line) for line in self.lines[:line0])
        return total + char_col
