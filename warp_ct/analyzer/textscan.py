"""Regular expressions over whole files, tried only where a match can start.

Python's ``re`` finds a literal prefix quickly, but a pattern that starts with ``\\b``, a
``^`` (MULTILINE), a character class or an alternation is tried at every offset of the
text: over a large project that is seconds. When a cheap fact says where every match
must start (one of the literals it begins with, a line that holds a word), ``str.find``
(C, memchr-fast) finds those places and the pattern is tried there only.

The answers are those of ``pattern.finditer(text, pos)``: ``match(text, at)`` still sees
the characters before ``at``, so ``\\b`` and ``^`` hold as in a full search, and matches
do not overlap.
"""

from __future__ import annotations

import bisect
import heapq
import re
from functools import lru_cache
from typing import Iterable, Iterator


def _occurrences(text: str, words: Iterable[str], pos: int) -> Iterator[tuple[int, str]]:
    """(offset, word) of every occurrence of the words from ``pos`` on, in text order;
    ``send(floor)`` skips ahead to ``floor``."""
    find = text.find
    heads = [(at, word) for word in words if (at := find(word, pos)) >= 0]
    heapq.heapify(heads)
    while heads:
        at, word = heads[0]
        floor = yield at, word
        following = find(word, max(at + 1, floor or 0))
        if following < 0:
            heapq.heappop(heads)
        else:
            heapq.heapreplace(heads, (following, word))


def finditer_at(pattern: re.Pattern[str], literals: str | Iterable[str], text: str, pos: int = 0) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text, pos)`` for a pattern whose every match starts with one of
    ``literals`` (after zero-width assertions such as ``\\b``)."""
    match = pattern.match
    if isinstance(literals, str):  # one literal: no merging needed
        find = text.find
        at = find(literals, pos)
        while at >= 0:
            found = match(text, at)
            if found is None:
                at = find(literals, at + 1)
            else:
                yield found
                at = find(literals, max(found.end(), at + 1))
        return
    floor = pos
    candidates = _occurrences(text, literals, pos)
    step = next(candidates, None)
    while step is not None:
        at = step[0]
        found = match(text, at) if at >= floor else None
        if found is not None:
            yield found
            floor = max(found.end(), at + 1)
        step = _advance(candidates, floor)


def finditer_lines(pattern: re.Pattern[str], literals: str | Iterable[str], text: str, pos: int = 0) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text, pos)`` for a ``^``-anchored MULTILINE pattern whose every
    match holds one of ``literals`` on its first line: only the lines with a literal are
    tried. A match may go on over later lines."""
    match, rfind, find = pattern.match, text.rfind, text.find
    floor = pos
    candidates = _occurrences(text, (literals,) if isinstance(literals, str) else literals, pos)
    step = next(candidates, None)
    while step is not None:
        start = rfind("\n", 0, step[0]) + 1
        found = match(text, start) if start >= floor else None
        if found is not None:
            yield found
        line_end = find("\n", step[0])
        if line_end < 0:
            return
        # The next candidate line starts after this one (and after the match).
        floor = max(line_end + 1, found.end() if found is not None else 0, floor)
        step = _advance(candidates, floor)


def _advance(candidates, floor: int):
    try:
        return candidates.send(floor)
    except StopIteration:
        return None


def search_at(pattern: re.Pattern[str], literals: str | Iterable[str], text: str, pos: int = 0) -> re.Match[str] | None:
    """``pattern.search(text, pos)`` under ``finditer_at``'s condition."""
    return next(finditer_at(pattern, literals, text, pos), None)


def search_lines(pattern: re.Pattern[str], literals: str | Iterable[str], text: str, pos: int = 0) -> re.Match[str] | None:
    """``pattern.search(text, pos)`` under ``finditer_lines``' condition."""
    return next(finditer_lines(pattern, literals, text, pos), None)


# ---------------------------------------------------------------------- top-level statements
# A line that starts a top-level statement: not blank, indented, a comment or a closing
# bracket (the line break before it makes ``re`` skip ahead with memchr).
_TOP_LEVEL_LINE_RE = re.compile(r"\n[^ \t#)\]}\n]")
_FUNCTION_HEAD_RE = re.compile(r"(?:async[ \t]+)?def\b")


@lru_cache(maxsize=4)  # several gates ask about the same file's text in a row
def top_level_lines(text: str) -> list[int]:
    """Offsets of the lines that (by indentation) start a top-level statement."""
    first = [0] if text[:1] not in ("", " ", "\t", "#", ")", "]", "}", "\n") else []
    return first + [match.start() + 1 for match in _TOP_LEVEL_LINE_RE.finditer(text)]


def function_start(text: str, offset: int, top_lines: list[int]) -> int | None:
    """Where the top-level function around ``offset`` starts, by indentation; None when the
    top-level statement there is not a function (a class body runs at import: module-level
    code). ``top_lines``: ``top_level_lines(text)``.

    A column-0 line inside a multi-line string looks like a statement start: the answer
    is then None (module level), or, for a line starting with ``def``, that line (a
    start later than the real one). Callers must treat None as "anything may precede".
    """
    line_start = text.rfind("\n", 0, offset) + 1
    i = bisect.bisect_right(top_lines, line_start) - 1
    if i < 0 or not _FUNCTION_HEAD_RE.match(text, top_lines[i]):
        return None
    return top_lines[i]


def decorator_text(text: str, start: int) -> str:
    """The rest of a decorator from ``start`` (inside it): its line and the lines after it,
    up to the next decorator or the ``def``/``class``."""
    end = text.find("\n", start)
    while end >= 0:
        following = text.find("\n", end + 1)
        line = text[end + 1 : following if following >= 0 else len(text)].lstrip()
        if line.startswith(("@", "def ", "async ", "class ")):
            break
        end = following
    return text[start : end if end >= 0 else len(text)]
