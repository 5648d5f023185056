"""Memoized recursive queries that stay linear on cyclic and deeply shared programs.

The model's questions recurse through each other: which kernels a call returns asks what
its ``return`` statements hold, which asks the callers for a parameter, which asks what
another call returns. Followed naively, a function whose returns call itself
(``def pick(a, b): ... return pick(b, a)``) is expanded once per path, exponentially in
the number of such returns, and a call graph with shared callees is walked once per path.

``QueryMemo`` answers each (query, place) once:

- an *exact* answer, computed without meeting a cycle or the depth cap, is the same from
  every caller: it is kept for the program's lifetime;
- an answer computed while a cycle was cut (a query asked again while it is still being
  computed answers ``unknown``) or the depth cap hit depends on the questions open above
  it: it is kept *provisionally*, reused while the outermost question is being answered
  (so a cycle is walked once per outermost question, never once per path through it),
  and forgotten when that question returns. A later outermost question computes it again
  from its own place, so no answer depends on which question was asked first (short of the
  depth cap, whose cut answers are only ever provisional).
"""

from __future__ import annotations

from typing import Any, Callable, Hashable

from warp_ct.analyzer.deadline import poll

_NONE_OPEN = 1 << 30  # no open question was met


class QueryMemo:
    """One per ``Program``: shared by all its recursive queries, so a cycle that runs
    through several of them (kernels -> a table's elements -> kernels) is cut too."""

    __slots__ = ("_exact", "_provisional", "_depth_of", "_low")

    def __init__(self) -> None:
        # key -> (the object the key names by identity, answer); holding the object keeps
        # its id from being reused by another while the entry lives.
        self._exact: dict[Hashable, tuple[Any, Any]] = {}
        # key -> (object, answer, the shallowest open question it depended on)
        self._provisional: dict[Hashable, tuple[Any, Any, int]] = {}
        self._depth_of: dict[Hashable, int] = {}  # the questions being computed, by depth
        self._low = _NONE_OPEN  # the shallowest open question the current one depended on

    def ask(self, key: Hashable, held: Any, compute: Callable[[], Any], unknown: Any) -> Any:
        """``compute()``'s answer for ``key`` (``held``: the object whose ``id`` is part of
        the key, or None); ``unknown`` while ``key`` is itself being computed."""
        entry = self._exact.get(key)
        if entry is not None and entry[0] is held:
            return entry[1]
        provisional = self._provisional.get(key)
        if provisional is not None and provisional[0] is held:
            self._low = min(self._low, provisional[2])
            return provisional[1]
        depth = self._depth_of.get(key)
        if depth is not None:  # a cycle: cut here
            self._low = min(self._low, depth)
            return unknown
        # The file's time budget where no timer can interrupt (a worker thread): checked
        # before this question is opened, so a stop leaves nothing half-recorded here.
        poll()
        depth = len(self._depth_of)
        outer_low, self._low = self._low, _NONE_OPEN
        self._depth_of[key] = depth
        try:
            answer = compute()
        except BaseException:  # a deadline or a crash: what the open questions kept goes too
            del self._depth_of[key]
            self._low = min(outer_low, self._low)
            self._end_of_question()
            raise
        del self._depth_of[key]
        if answer.__class__ is tuple and answer == unknown:
            # The shared object, not one copy per question: on newton 182k of 238k answers
            # are "unknown" (11 MiB of one-element tuples held to the end of the model).
            answer = unknown
        low, self._low = self._low, min(outer_low, self._low)
        # Cycles closed at this question or below it: the answer is the same from anywhere.
        if low >= depth:
            self._exact[key] = (held, answer)
        else:
            self._provisional[key] = (held, answer, low)
        self._end_of_question()
        return answer

    def _end_of_question(self) -> None:
        if not self._depth_of:  # the outermost question returned: forget what depended on it
            self._provisional.clear()
            self._low = _NONE_OPEN

    def cut(self, unknown: Any) -> Any:
        """The depth cap was reached: ``unknown``, and no answer open above it is exact."""
        self._low = -1
        return unknown
