"""Regular expressions over whole files, tried only where a match can start.

Python's ``re`` finds a literal prefix quickly, but a pattern that starts with ``\\b``, a
``^`` (MULTILINE), a character class or an alternation is tried at every offset of the
text: over a large project that is seconds. When a cheap fact says where every match
must start (the literal it begins with, the line that holds a word), ``str.find`` (C,
memchr-fast) finds those places and the pattern is tried there only. The answers are
those of ``pattern.finditer(text)``: ``match(text, pos)`` still sees the characters
before ``pos``, so ``\\b`` and ``^`` hold as in a full search.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator


def finditer_at(pattern: re.Pattern[str], literal: str, text: str) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)`` for a pattern whose every match starts with ``literal``
    (after zero-width assertions such as ``\\b``)."""
    find, match = text.find, pattern.match
    pos = find(literal)
    while pos >= 0:
        found = match(text, pos)
        if found is None:
            pos = find(literal, pos + 1)
        else:
            yield found
            pos = find(literal, max(found.end(), pos + 1))


def search_at(pattern: re.Pattern[str], literals: Iterable[str], text: str) -> bool:
    """Whether ``pattern`` matches somewhere, for a pattern whose every match starts with
    one of ``literals`` (after zero-width assertions)."""
    return any(next(finditer_at(pattern, literal, text), None) is not None for literal in literals if literal in text)


def finditer_lines(pattern: re.Pattern[str], literal: str, text: str) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)`` for a ``^``-anchored MULTILINE pattern whose every match
    holds ``literal`` on its first line: only the lines with the literal are tried. A
    match may go on over later lines."""
    find, rfind, match = text.find, text.rfind, pattern.match
    floor = 0  # matches do not overlap: the next starts at or after the last one's end
    pos = find(literal)
    while pos >= 0:
        start = rfind("\n", 0, pos) + 1
        found = match(text, start) if start >= floor else None
        if found is not None:
            yield found
            floor = found.end()
        line_end = find("\n", pos)
        if line_end < 0:
            return
        pos = find(literal, max(line_end + 1, floor))


def search_lines(pattern: re.Pattern[str], literals: Iterable[str], text: str) -> bool:
    """Whether a ``^``-anchored MULTILINE pattern matches somewhere, when every match holds
    one of ``literals`` on its first line."""
    return any(next(finditer_lines(pattern, literal, text), None) is not None for literal in literals if literal in text)
