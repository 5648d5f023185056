"""The analysis worker: one thread (astroid is not thread-safe), debounced, newest text only.

Edits put a :class:`Job` in a map keyed by URI, replacing any job not yet started, so a
burst of 1,000 edits leaves one job. The thread runs submitted tasks first (settings
changes, code-action re-lints, workspace lint), then the earliest job whose debounce has
expired. While idle it calls ``on_idle`` every ``idle_interval`` seconds (pyproject polls).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Callable


@dataclass
class Job:
    uri: str
    path: str
    text: str
    version: int | None
    generation: int
    due: float  # time.monotonic() after which it may run
    reason: str = "change"
    scheduled: float = 0.0  # when the triggering event arrived (for latency logs)


class Worker:
    def __init__(
        self,
        process: Callable[[Job], None],
        *,
        on_error: Callable[[str, BaseException], None],
        on_idle: Callable[[], None] | None = None,
        idle_interval: float = 2.0,
    ) -> None:
        self._process = process
        self._on_error = on_error
        self._on_idle = on_idle
        self._idle_interval = idle_interval
        self._cond = threading.Condition()
        self._pending: dict[str, Job] = {}
        self._tasks: deque[tuple[Callable[[], Any], Future]] = deque()
        self._stopped = False
        self._busy_uri: str | None = None
        self.jobs_run = 0  # for tests and the log: analyses actually performed
        self._thread = threading.Thread(target=self._run, name="warp-ct-analysis", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ producers (any thread)
    def schedule(self, job: Job) -> None:
        with self._cond:
            self._pending[job.uri] = job
            self._cond.notify()

    def cancel(self, uri: str) -> None:
        with self._cond:
            self._pending.pop(uri, None)

    def has_pending(self, uri: str) -> bool:
        with self._cond:
            return uri in self._pending

    def submit(self, fn: Callable[[], Any]) -> Future:
        future: Future = Future()
        with self._cond:
            if self._stopped:
                future.set_exception(RuntimeError("the analysis worker has stopped"))
                return future
            self._tasks.append((fn, future))
            self._cond.notify()
        return future

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._pending.clear()
            while self._tasks:
                _fn, future = self._tasks.popleft()
                future.cancel()
            self._cond.notify_all()

    @property
    def on_worker_thread(self) -> bool:
        return threading.current_thread() is self._thread

    # ------------------------------------------------------------------ the thread
    def _next(self) -> tuple[str, Any] | None:
        idle_since = time.monotonic()
        with self._cond:
            while not self._stopped:
                if self._tasks:
                    return "task", self._tasks.popleft()
                now = time.monotonic()
                if self._pending:
                    uri, job = min(self._pending.items(), key=lambda item: item[1].due)
                    if job.due <= now:
                        del self._pending[uri]
                        return "job", job
                    self._cond.wait(job.due - now)
                    continue
                if self._on_idle is not None and now - idle_since >= self._idle_interval:
                    return "idle", None
                self._cond.wait(self._idle_interval if self._on_idle is not None else None)
        return None

    def _run(self) -> None:
        while True:
            item = self._next()
            if item is None:
                return
            kind, payload = item
            if kind == "task":
                fn, future = payload
                if not future.set_running_or_notify_cancel():
                    continue
                try:
                    future.set_result(fn())
                except BaseException as exc:  # noqa: BLE001 - reported to the caller
                    future.set_exception(exc)
            elif kind == "job":
                try:
                    self.jobs_run += 1
                    self._process(payload)
                except Exception as exc:  # noqa: BLE001 - the worker must survive anything
                    self._on_error(f"analysing {payload.uri}", exc)
            else:
                try:
                    assert self._on_idle is not None
                    self._on_idle()
                except Exception as exc:  # noqa: BLE001
                    self._on_error("checking configuration files", exc)
