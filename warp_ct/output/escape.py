"""Text from the linted files, made safe to print in a terminal or a CI log.

Finding messages quote the linted source (a module name, a cache directory), and paths and
source lines are the repository's own: a string literal holding a newline, a carriage
return, an ANSI escape (``\\x1b[2J`` clears the screen) or a bidirectional override could
forge finding lines, hide real ones, or show text other than what is there. The text
formats print such characters as Python's ``repr`` does (``\\n``, ``\\x1b``, ``\\u202e``),
so that each finding stays on its own line(s) and shows what the file holds.
"""

from __future__ import annotations

import re

# C0 controls but CR and LF, DEL and C1 controls (``\x85`` and ``\x1c``-``\x1e`` are line
# breaks to ``str.splitlines``); the line and paragraph separators; and the bidirectional
# formatting characters that reorder what follows them (the embeddings, overrides and
# isolates, and the implicit marks ALM, LRM and RLM).
_UNSAFE_BUT_LINE_BREAKS = r"\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_UNSAFE_RE = re.compile(rf"[\r\n{_UNSAFE_BUT_LINE_BREAKS}]")
# For the ``github`` format, whose own escaping encodes CR and LF.
_UNSAFE_BUT_LINE_BREAKS_RE = re.compile(rf"[{_UNSAFE_BUT_LINE_BREAKS}]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(match: re.Match[str]) -> str:
    char = match.group(0)
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every control, line-breaking and bidirectional formatting character
    written as its escape; the same string when there is none (the usual case)."""
    if text.isprintable():  # each character escaped is one str.isprintable() rejects
        return text
    return _UNSAFE_RE.sub(_escaped, text)


def printable_but_line_breaks(text: str) -> str:
    """``printable``, leaving CR and LF for a format that encodes them its own way."""
    if text.isprintable():
        return text
    return _UNSAFE_BUT_LINE_BREAKS_RE.sub(_escaped, text)
