"""CPU-time limits for analysis of one file.

The cooperative budget in ``FileContext.infer`` stops *starting* inference once a file has
spent its share, but one astroid inference call can itself run for minutes on a
pathological file. Where POSIX interval timers exist and we are on the main thread (the
CLI, the crash sweep, lint worker processes), ``hard_deadline`` arms ``ITIMER_PROF`` and
raises ``DeadlineExceeded`` from the ``SIGPROF`` handler inside whatever is running when
the time is up. Limits count CPU time (user + system), not wall time, so a busy CI
machine does not make results depend on its load.

Signals cannot be delivered to a worker thread (the language server analyses on one) nor
on Windows, so every deadline is also kept per thread and checked cooperatively: ``poll``
raises the same ``DeadlineExceeded`` once the thread's CPU time passes it. The places
where the analysis can run long call it (the program model's recursive queries, the
tree rules' walk), so there too a file stops near its budget; what they cannot reach is
the inside of one astroid call, which only the timer interrupts.

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

# The cooperative side: this thread's deadlines (absolute thread CPU time, kind, seconds),
# innermost last. Thread CPU time, not the process's: the server's other threads (the
# protocol loop) must not spend a file's budget.
thread_clock = getattr(time, "thread_time", time.process_time)
_local = threading.local()
# ``poll`` reads the clock once every this many calls (a clock read is a system call, a
# countdown is not); the calls it sits in take microseconds each, so a deadline is seen
# within a millisecond or so. The countdown is shared by threads: a race only moves a check.
POLL_EVERY = 64
_countdown = POLL_EVERY


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


def poll() -> None:
    """Raise ``DeadlineExceeded`` if one of this thread's deadlines has passed (cheap: the
    clock is read every ``POLL_EVERY`` calls)."""
    global _countdown
    _countdown -= 1
    if _countdown <= 0:
        _countdown = POLL_EVERY
        _check()


def _check() -> None:
    stack = getattr(_local, "stack", None)
    if stack:
        now = thread_clock()
        expired = [entry for entry in stack if entry[0] <= now]
        if expired:
            _when, kind, seconds = min(expired, key=lambda e: e[0])
            raise DeadlineExceeded(kind, seconds)


@contextmanager
def _cooperative(seconds: float, kind: str) -> Iterator[None]:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    entry = (thread_clock() + seconds, kind, seconds)
    stack.append(entry)
    try:
        yield
    finally:
        for at in range(len(stack) - 1, -1, -1):
            if stack[at] is entry:
                # Inner entries go too: an outer timer's alarm can cut an inner block's
                # clean-up short, and a stale entry would stop every later file.
                del stack[at:]
                break


@contextmanager
def hard_deadline(seconds: float | None, kind: str) -> Iterator[bool]:
    """Raise ``DeadlineExceeded(kind)`` in this block after ``seconds`` of CPU time.

    Yields whether a timer enforces it anywhere in the block (False: only at ``poll``
    calls, off the main thread or without POSIX timers).
    """
    if seconds is None or seconds <= 0:
        yield False
        return
    with _cooperative(seconds, kind):
        if not available():
            yield False
            return
        with _timer(seconds, kind):
            yield True


@contextmanager
def _timer(seconds: float, kind: str) -> Iterator[None]:
    global _previous_handler
    token = object()
    entry = (_clock() + seconds, kind, seconds, token)
    outermost = not _active
    if outermost:
        previous = signal.signal(_SIGNAL, _on_alarm)
        _previous_handler = previous if previous is not None else signal.SIG_DFL
    _active.append(entry)
    try:
        _arm()
        yield
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
