"""ANSI styling for the human formats (applied only when colour is on)."""

from __future__ import annotations

_CODES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "blue": "34", "cyan": "36"}


def paint(text: str, *styles: str, color: bool) -> str:
    if not color or not styles or not text:
        return text
    codes = ";".join(_CODES[s] for s in styles)
    return f"\x1b[{codes}m{text}\x1b[0m"
