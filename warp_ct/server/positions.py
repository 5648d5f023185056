"""Character positions (Python str indices, the analyzer's unit) <-> the client's units.

LSP counts columns in the negotiated encoding: UTF-16 code units by default, UTF-8 bytes
or UTF-32 (= characters) when negotiated. Lines are split the way LSP splits them
(``\\n``, ``\\r\\n``, ``\\r``), not with ``str.splitlines`` (which also breaks at form
feeds, ``\\u2028``...).
"""

from __future__ import annotations

from lsprotocol import types

from warp_ct.analyzer.model import Position, Range

UTF8 = "utf-8"
UTF16 = "utf-16"
UTF32 = "utf-32"

from warp_ct.analyzer.positions import split_lines  # noqa: E402,F401 - re-exported for the server


def normalize_encoding(encoding: object) -> str:
    value = getattr(encoding, "value", encoding)
    value = str(value or UTF16).lower()
    return value if value in (UTF8, UTF16, UTF32) else UTF16


def units(text: str, encoding: str) -> int:
    """Length of ``text`` in the client's units."""
    if encoding == UTF32 or text.isascii():
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", errors="surrogatepass"))
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def char_to_client(line: str, character: int, encoding: str) -> int:
    character = max(0, min(character, len(line)))
    if encoding == UTF32 or line.isascii():
        return character
    return units(line[:character], encoding)


def client_to_char(line: str, column: int, encoding: str) -> int:
    """The str index at a client column (clamped to the line; inside a character -> its start)."""
    column = max(0, column)
    if encoding == UTF32 or line.isascii():
        return min(column, len(line))
    count = 0
    for index, ch in enumerate(line):
        if encoding == UTF16:
            width = 2 if ord(ch) > 0xFFFF else 1
        else:
            width = len(ch.encode("utf-8", errors="surrogatepass"))
        if count + width > column:
            return index
        count += width
    return len(line)


class Converter:
    """Converts positions for one text (built once per published version)."""

    __slots__ = ("lines", "encoding")

    def __init__(self, text: str, encoding: str) -> None:
        self.lines = split_lines(text)
        self.encoding = encoding

    def line(self, line0: int) -> str:
        return self.lines[line0] if 0 <= line0 < len(self.lines) else ""

    def position(self, pos: Position) -> types.Position:
        if pos.line >= len(self.lines):  # past the end: clamp to the end of the text
            last = len(self.lines) - 1
            return types.Position(line=last, character=units(self.lines[last], self.encoding))
        return types.Position(line=max(pos.line, 0), character=char_to_client(self.line(pos.line), pos.character, self.encoding))

    def position_for(self, line0: int, character: int) -> int:
        return char_to_client(self.line(line0), character, self.encoding)

    def range(self, rng: Range) -> types.Range:
        return types.Range(start=self.position(rng.start), end=self.position(rng.end))

    def to_char(self, pos: types.Position) -> Position:
        return Position(pos.line, client_to_char(self.line(pos.line), pos.character, self.encoding))

    def to_char_range(self, rng: types.Range) -> Range:
        return Range(self.to_char(rng.start), self.to_char(rng.end))

    def end(self) -> types.Position:
        last = len(self.lines) - 1
        return types.Position(line=last, character=units(self.lines[last], self.encoding))
