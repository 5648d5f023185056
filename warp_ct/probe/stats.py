"""Robust summary statistics over samples (few, noisy: medians and MAD, never means)."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Summary:
    """Median and median absolute deviation of the samples that had a value."""

    median: float | None
    mad: float | None
    n: int

    def to_dict(self) -> dict[str, float | int | None]:
        return {"median": self.median, "mad": self.mad, "n": self.n}


def summarize(values: Iterable[float | None]) -> Summary:
    present = [float(v) for v in values if v is not None]
    if not present:
        return Summary(None, None, 0)
    middle = statistics.median(present)
    mad = statistics.median(abs(v - middle) for v in present)
    return Summary(middle, mad, len(present))


def union_length(intervals: Iterable[tuple[float, float]]) -> float:
    """Total length covered by half-open intervals (overlaps counted once)."""
    total = 0.0
    current_start: float | None = None
    current_end = 0.0
    for start, end in sorted(intervals):
        if current_start is None or start > current_end:
            if current_start is not None:
                total += current_end - current_start
            current_start, current_end = start, end
        else:
            current_end = max(current_end, end)
    if current_start is not None:
        total += current_end - current_start
    return total
