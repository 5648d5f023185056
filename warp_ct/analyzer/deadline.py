"""Hard CPU-time limits for analysis of one file.

The cooperative budget in ``FileContext.infer`` stops *starting* inference once a file has
spent its share, but one astroid inference call can itself run for minutes on a
pathological file. Where POSIX interval timers exist and we are on the main thread (the
CLI, the crash sweep, lint worker processes), ``hard_deadline`` arms ``ITIMER_PROF`` and
raises ``DeadlineExceeded`` from the ``SIGPROF`` handler inside whatever is running when
the time is up. Limits count CPU time of the process (user + system), not wall time, so
a busy CI machine does not make results depend on its load. Elsewhere (the
language server analyses on a worker thread, where signals cannot be delivered; Windows)
it does nothing and the cooperative checks are the only limit.

``DeadlineExceeded`` derives from ``BaseException`` so that astroid's and the rules' own
``except Exception`` handlers do not swallow it; ``FileContext.infer`` and the engine catch
it at the boundary that owns the deadline (``kind`` says which one).

Deadlines nest: the engine holds a per-file deadline while each inference call holds a
shorter one; the timer is always armed for the earliest.
"""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator


class DeadlineExceeded(BaseException):
    """Raised asynchronously when a ``hard_deadline`` expires."""

    def __init__(self, kind: str, seconds: float) -> None:
        super().__init__(f"{kind} time limit of {seconds:g} s exceeded")
        self.kind = kind
        self.seconds = seconds


# Stack of active deadlines: (absolute process CPU time, kind, seconds, token).
_active: list[tuple[float, str, float, object]] = []
_previous_handler: Any = None
_HAS_TIMER = hasattr(signal, "setitimer") and hasattr(signal, "SIGPROF")
_TIMER = getattr(signal, "ITIMER_PROF", 2)
_SIGNAL = getattr(signal, "SIGPROF", 27)
_clock = time.process_time


def available() -> bool:
    """Whether hard deadlines work here (POSIX timer, main thread)."""
    return _HAS_TIMER and threading.current_thread() is threading.main_thread()


def _arm() -> None:
    if not _active:
        signal.setitimer(_TIMER, 0)
        return
    earliest = min(entry[0] for entry in _active)
    signal.setitimer(_TIMER, max(earliest - _clock(), 1e-3))


def _on_alarm(signum: int, frame: Any) -> None:  # noqa: ARG001 - signal handler signature
    now = _clock()
    expired = [entry for entry in _active if entry[0] <= now + 1e-3]
    if not expired:
        _arm()  # early or stale signal: wait for the earliest one again
        return
    when, kind, seconds, _token = min(expired, key=lambda e: e[0])
    raise DeadlineExceeded(kind, seconds)


@contextmanager
def hard_deadline(seconds: float | None, kind: str) -> Iterator[bool]:
    """Raise ``DeadlineExceeded(kind)`` in this block after ``seconds`` of CPU time.

    Yields whether the limit is really enforced (False: cooperative checks only).
    """
    global _previous_handler
    if seconds is None or seconds <= 0 or not available():
        yield False
        return
    token = object()
    entry = (_clock() + seconds, kind, seconds, token)
    outermost = not _active
    if outermost:
        previous = signal.signal(_SIGNAL, _on_alarm)
        _previous_handler = previous if previous is not None else signal.SIG_DFL
    _active.append(entry)
    try:
        _arm()
        yield True
    finally:
        while True:  # an alarm landing during clean-up is retried, never leaves stale state
            try:
                _release(token)
                break
            except DeadlineExceeded:
                continue


def _release(token: object) -> None:
    global _previous_handler
    signal.setitimer(_TIMER, 0)
    _active[:] = [e for e in _active if e[3] is not token]
    if _active:
        _arm()
    elif _previous_handler is not None:
        signal.signal(_SIGNAL, _previous_handler)
        _previous_handler = None
