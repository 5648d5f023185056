"""Lint files in worker processes; results come back keyed by index so order never changes.

Each worker needs the same project view (every file's summary, and the texts astroid's
import hook parses when inference follows an import). Where ``fork`` is available and
the process has no other threads, workers inherit the parent's ``Linter`` (summaries
already built, copy-on-write: nothing is pickled but the results). Elsewhere (spawn), each
worker re-reads and re-summarises the files in its initializer: regular expressions over
the text, cheap next to the trees it then builds.

Before that, the run's workers, forked once per run (``WorkerPool``), lint whole projects
beside the parent's and extract the facts the parent's program model joins (a parse and a
walk of every Warp file, the larger part of a cold lint); the tree workers are forked after
each project's model is built from them. Without ``fork``, the parent does all of it.

A worker that dies (``BrokenProcessPool``: killed for memory, a segfault in a C extension)
does not lose the run: every file whose result did not come back is linted again serially
in the parent.

Workers never outlive the parent, however it ends (``_die_with_parent``): a worker left
behind would wait forever and hold the caller's output pipes open, so that whatever reads
them waits too. SIGTERM and SIGHUP end the workers before the parent
(``_hold_ending_signals``); a SIGKILL ends them through the kernel on Linux, elsewhere they
watch for it.
"""

from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import threading
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Callable, Sequence

from warp_ct.analyzer.engine import Linter, SourceFile, read_source
from warp_ct.analyzer.facts import FileFacts
from warp_ct.analyzer.model import FileResult
from warp_ct.analyzer.project import FileSummary, Project, compute_facts
from warp_ct.analyzer.syntax import gc_paused
from warp_ct.config import Config

# Below this many files that need a tree, a pool costs more than it saves.
MIN_PARALLEL_FILES = 8

# Below this many characters of text to extract facts from, a pool costs more than it saves
# (extraction runs at about 3 MB/s; a pool cost 0.2-0.3 s in Isaac Lab's small scopes, where
# 1.5 MB of facts took 0.54 s in workers against about 0.5 s serially).
MIN_PARALLEL_FACTS_CHARS = 2_000_000
# Below this many characters of Warp files to gate and lint, forking workers that share the
# model costs more than it saves.
MIN_PARALLEL_GATED_CHARS = 500_000

# Once a run's pool is up, a project pays only for sending its texts and taking its facts back.
MIN_PARALLEL_FACTS_CHARS_WARM = 100_000

# Below this much estimated work in the projects waiting beside the parent's, starting
# workers for them costs more than it saves (a project's estimate: the characters of its
# named files that mention Warp; Isaac Lab's projects took 0.4-0.5 s per million).
MIN_PARALLEL_PROJECT_CHARS = 200_000

_worker_linter: Linter | None = None
_worker_source: Callable[[int], SourceFile] | None = None  # file index -> the file, text included


def available_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


# The signals that end a run (SIGINT is the CLI's: a KeyboardInterrupt stops the run).
_ENDING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
_ending_handlers_before: dict[int, Any] = {}  # what ``_hold_ending_signals`` replaced
_ending_signals_holders = 0

# The parent's ends of the pool workers' pipes. A forked child closes its copies: a worker
# reads EOF when the parent is gone only if no other process holds the parent's end.
_parent_ends: set[Connection] = set()

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_prctl: Any = None  # libc's prctl, looked up before the first fork (children then need not import ctypes)


def _look_up_prctl() -> None:
    global _prctl
    if _prctl is None and sys.platform.startswith("linux"):
        try:
            import ctypes

            _prctl = ctypes.CDLL(None, use_errno=True).prctl
            _prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
        except (OSError, AttributeError):
            _prctl = False


def _die_with_parent(parent: int) -> None:
    """A worker's first step: it ends when ``parent`` does, whatever the signal, SIGKILL
    included. On Linux the kernel kills it (``PR_SET_PDEATHSIG``); elsewhere a thread
    watches for the parent to go. A pool worker also reads EOF on its pipe then."""
    for connection in _parent_ends:
        connection.close()
    _parent_ends.clear()
    for signum in _ending_handlers_before:  # the parent's handler, copied by the fork
        signal.signal(signum, signal.SIG_DFL)
    if not (_prctl and _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0):
        threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent died before the kernel was told
        os._exit(1)


def _exit_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(1)


def _hold_ending_signals() -> None:
    """Before forking workers: SIGTERM and SIGHUP end them, and then this process as the
    signal would have. Only a default action is replaced (an ignored SIGHUP, ``nohup``, stays
    ignored; a handler of the embedding program's stays its own). Nests; undone by
    ``_release_ending_signals``."""
    global _ending_signals_holders
    if threading.current_thread() is not threading.main_thread():
        return
    _ending_signals_holders += 1
    if _ending_signals_holders == 1:
        for signum in _ENDING_SIGNALS:
            if signal.getsignal(signum) is signal.SIG_DFL:
                _ending_handlers_before[signum] = signal.signal(signum, _end_workers_then_self)


def _release_ending_signals() -> None:
    global _ending_signals_holders
    if threading.current_thread() is not threading.main_thread() or not _ending_signals_holders:
        return
    _ending_signals_holders -= 1
    if _ending_signals_holders == 0:
        for signum, handler in _ending_handlers_before.items():
            signal.signal(signum, handler)
        _ending_handlers_before.clear()


def _end_workers_then_self(signum: int, frame: Any) -> None:  # noqa: ARG001 - signal handler signature
    """SIGTERM or SIGHUP while workers run: kill and reap them, then end by the signal's
    default action (the caller sees the signal: a shell's status is 128 + its number)."""
    workers = multiprocessing.active_children()
    for process in workers:
        process.kill()
    for process in workers:
        process.join(timeout=2)
    signal.signal(signum, signal.SIG_DFL)
    signal.raise_signal(signum)


def _init_spawned(config: Config, paths: list[str], parent: int) -> None:
    global _worker_linter, _worker_source
    _look_up_prctl()  # a fresh interpreter: nothing was looked up in it
    _die_with_parent(parent)
    files = [read_source(p) for p in paths]
    linter = Linter(config)
    linter.add_to_project(files)
    _worker_linter, _worker_source = linter, files.__getitem__


def _lint_chunk(indices: list[int]) -> tuple[list[tuple[int, FileResult, bool]], list]:
    """(index, result, whether a rule needed its tree) of each file, and what the worker's
    model has read from outside the project so far (``outside.OutsideModules.lookups``: a
    result cache must know every file a result depends on)."""
    linter, source = _worker_linter, _worker_source
    assert linter is not None and source is not None, "worker not initialised"
    results = [(i, *lint_counting_tree(linter, source(i))) for i in indices]
    outside = linter.project.outside
    return results, outside.lookups() if outside is not None else []


def lint_counting_tree(linter: Linter, source: SourceFile) -> tuple[FileResult, bool]:
    """``lint_one``, and whether a rule needed the file's tree (the gates' answer, which the
    lint then reads from the linter's cache)."""
    try:
        needs_tree = bool(linter.active_rules(source.path, source.text))
    except Exception:  # noqa: BLE001 - the lint says what went wrong
        needs_tree = False
    return lint_one(linter, source), needs_tree


def lint_one(linter: Linter, source: SourceFile) -> FileResult:
    """``linter.lint_source_file`` that never raises (a last line of defence)."""
    try:
        return linter.lint_source_file(source)
    except RecursionError:
        return FileResult(source.path, notes=["skipped: analysis recursed too deeply on this file"])
    except MemoryError:
        return FileResult(source.path, notes=["skipped: out of memory while analysing this file"])
    except Exception as exc:  # noqa: BLE001 - a bug in the engine must not stop the whole run
        return FileResult(source.path, notes=[f"skipped: internal error while analysing this file: {type(exc).__name__}: {exc}"])


def _chunks(indices: Sequence[int], weights: dict[int, int], jobs: int, per_worker: int = 4) -> list[list[int]]:
    """Balanced chunks: largest files first, about ``per_worker`` chunks per worker, heavy files alone."""
    order = sorted(indices, key=lambda i: -weights[i])
    total = sum(weights[i] for i in order) or 1
    target = max(total / (jobs * per_worker), 1)
    chunks: list[list[int]] = []
    current: list[int] = []
    size = 0
    for i in order:
        current.append(i)
        size += weights[i]
        if size >= target:
            chunks.append(current)
            current, size = [], 0
    if current:
        chunks.append(current)
    return chunks


def can_fork() -> bool:
    """Workers may be forked: they then inherit the parent's state, nothing is pickled to them."""
    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def _facts_chunk(items: list[tuple[str, str, str, bool]]) -> list[tuple[str, FileFacts]]:
    """The facts of each (path, text, module name, skeleton) sent to a worker."""
    return [(path, compute_facts(path, text, module, skeleton=skeleton)[0]) for path, text, module, skeleton in items]


def _worker(connection: Connection, lint_project: Callable[[int], Any] | None, parent: int) -> None:
    """A worker's loop: a job in, its answer out, until the parent says stop (None) or goes
    away. A job is ``("facts", items)``: the facts of each (path, text, module name,
    skeleton); or ``("project", index)``: ``lint_project(index)``, a whole project linted here."""
    _die_with_parent(parent)
    # Ctrl-C reaches the whole process group: the parent stops the run, and then its workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # What the fork copied is never read here: a collection walking it would copy its pages.
    gc.freeze()
    while True:
        try:
            job = connection.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        kind, payload = job
        try:
            if kind == "facts":
                reply: tuple[str, Any] = ("facts", _facts_chunk(payload))
            else:
                assert lint_project is not None
                reply = ("project", lint_project(payload))
            connection.send(reply)
        except Exception as exc:  # noqa: BLE001 - facts too deep to pickle, a project that failed: the parent does it
            connection.send(("failed", f"{type(exc).__name__}: {exc}"))


class WorkerPool:
    """A run's ``jobs - 1`` worker processes beside the parent, for every project of the run.

    Two kinds of work go to them:

    - **Whole projects.** The projects of a run are independent (``scope``), so while the
      parent lints one, a worker lints another from start to end and sends its results
      back. The parent takes the largest project left, the workers the next ones (largest
      first: the run ends when its longest project does). Isaac Lab's 24 small projects
      took 2.6 s in the parent after its large one; the corpus's warp-lang 8 s after newton.
    - **Facts of the parent's project.** Extracting the facts the program model joins is the
      larger part of a large project's lint, and the parent waits for all of them before it
      builds the model. An idle worker gets a chunk of texts (with their module names:
      ``compute_facts`` depends on nothing else) and sends the facts back pickled; the facts
      cache is read and written in the parent. The parent extracts too, from the small end:
      pickling and unpickling cost a third of extracting (Isaac Lab: 5.2 s to extract,
      0.5 s to pickle, 0.4-1.0 s to unpickle), so a parent that only gathered competed with
      its workers for a core. A chunk of facts goes before a waiting project: the parent's
      model waits for it. So a project the parent takes holds the waiting ones back until
      its facts are extracted (the corpus at ``-j 2``: the worker took warp-lang first and
      left newton's facts to the parent, 18 s; helping first, 15 s).

    The workers are forked once, when there is first enough work for them (a project's
    pool of its own cost Isaac Lab's small projects 0.2-0.3 s each), and kept to the end of
    the run. One job in flight per worker: a send never waits on a worker that is itself
    sending. Plain processes and pipes, no threads: the tree workers are forked later in
    the same run, and forking beside threads is unsafe. A worker that dies, or a job that
    fails in one, leaves its work to the parent, and the rest of the run too: the pool
    stops. Output is the same whoever did the work."""

    def __init__(
        self,
        jobs: int,
        lint_project: Callable[[int], Any] | None = None,
        on_project: Callable[[int, Any], None] | None = None,
    ) -> None:
        """``lint_project(index)``: run in a worker, a project's outcome (pickled back);
        ``on_project(index, outcome)``: called in the parent when one comes back."""
        self.jobs = jobs
        self._lint_project = lint_project
        self._on_project = on_project
        self._workers: list[tuple[BaseProcess, Connection]] = []
        self._broken = False
        self._busy: dict[Connection, list[FileSummary] | int] = {}  # a facts chunk or a project index
        self._projects: deque[int] = deque()  # waiting, in the order to take them
        self._weights: dict[int, int] = {}
        self._first_project_taken = False
        # The parent has taken a project whose facts its workers may help extract: no worker
        # starts another project until ``extract`` is done with them.
        self._facts_first = False
        # While ``extract`` runs: its project, the chunks left, what a dead worker lost.
        self._extracting: Project | None = None
        self._chunks: deque[list[FileSummary]] = deque()
        self._skeleton = False
        self._lost: list[FileSummary] = []
        self._holds_ending_signals = False

    # ------------------------------------------------------------------ projects
    def add_projects(self, weights: dict[int, int]) -> None:
        """Projects to lint, by index, with their estimated cost: taken in that order (the
        largest first where workers share them)."""
        self._weights.update(weights)
        self._projects.extend(weights)

    def next_project(self) -> int | None:
        """The next project for the parent to lint; None once every project is done (the
        workers' included: this waits for them)."""
        while True:
            self._gather(0)
            if self._projects:
                index = self._projects.popleft()
                self._facts_first = True
                if not self._first_project_taken:  # workers for projects? Asked once: what waits only shrinks
                    self._first_project_taken = True
                    waiting = sum(self._weights[i] for i in self._projects)
                    if self._projects and waiting >= MIN_PARALLEL_PROJECT_CHARS and self._may_start():
                        self._start()
                self.tend()
                return index
            if not any(isinstance(job, int) for job in self._busy.values()):
                return None
            self._gather(None)

    def tend(self) -> None:
        """Take the answers that are in and give idle workers more (the parent calls this
        between its own steps: a worker is idle until then)."""
        if self._busy:
            self._gather(0)
        for connection in self._idle():
            self._hand_out(connection)

    # ------------------------------------------------------------------ facts
    def extract(self, project: Project) -> int:
        """Extract the facts ``project.program()`` will join that the facts cache does not
        hold; returns the processes used (1: none, the model extracts them as it is built).
        A dead worker leaves what did not come back to the parent. Idle workers then take
        the projects waiting."""
        try:
            used = self._extract(project)
        finally:
            self._facts_first = False
        self.tend()
        return used

    def _extract(self, project: Project) -> int:
        if self.jobs < 2 or not (self._workers or self._may_start()):
            return 1
        todo = [s for s in project.program_members() if not project.has_facts(s) and project.stored_facts(s) is None]
        weights = {i: s.size for i, s in enumerate(todo)}
        threshold = MIN_PARALLEL_FACTS_CHARS_WARM if self._workers else MIN_PARALLEL_FACTS_CHARS
        if len(todo) < MIN_PARALLEL_FILES or sum(weights.values()) < threshold:
            return 1
        if not self._workers:
            self._start()
        self._skeleton = project.extracts_skeletons
        self._chunks = deque([todo[i] for i in chunk] for chunk in _chunks(list(weights), weights, self.jobs, per_worker=32))
        self._extracting = project
        # The facts are acyclic: nothing for the collector to find as they are unpickled.
        with gc_paused():
            try:
                for connection in self._idle():
                    self._hand_out(connection)
                while self._chunks:
                    # A file at a time from the smallest chunk left: a worker that asks
                    # meanwhile takes the largest, which may be what is left of this one.
                    last = self._chunks[-1]
                    summary = last.pop()
                    if not last:
                        self._chunks.pop()
                    project.facts(summary)
                    if self._busy:
                        self._gather(0)
                while any(isinstance(job, list) for job in self._busy.values()):
                    self._gather(None)
            except BaseException:  # Ctrl-C, or an error here: no worker's reply may be read as another's
                self._broken = True
                self.close(now=True)
                raise
            finally:
                self._extracting = None
            lost, self._lost = self._lost, []
            for summary in lost:
                project.facts(summary)
            # Millions of acyclic objects, kept to the end of the project: the first
            # collection after the pause walked them all (0.4 s on Isaac Lab).
            gc.freeze()
        return self.jobs

    # ------------------------------------------------------------------ the workers
    def _may_start(self) -> bool:
        return self.jobs > 1 and not self._broken and can_fork()

    def _idle(self) -> list[Connection]:
        return [connection for _process, connection in self._workers if connection not in self._busy]

    def _hand_out(self, connection: Connection) -> None:
        """The worker's next job: a chunk of the parent's facts, else a waiting project."""
        if self._broken:
            return
        if self._chunks:
            chunk = self._chunks.popleft()  # the largest left
            job: list[FileSummary] | int = chunk
            message: tuple[str, Any] = ("facts", [(s.path, s.text, s.module_name, self._skeleton) for s in chunk])
        elif self._projects and not self._facts_first:
            job = self._projects.popleft()
            message = ("project", job)
        else:
            return
        self._busy[connection] = job
        try:
            connection.send(message)
        except OSError:  # a dead worker
            self._stop()

    def _gather(self, timeout: float | None) -> None:
        """Take the answers of the workers that have one (waiting up to ``timeout``), and
        give each of them its next job."""
        if not self._busy:
            return
        for connection in multiprocessing.connection.wait(list(self._busy), timeout=timeout):
            job = self._busy.pop(connection)  # type: ignore[call-overload]
            try:
                data = connection.recv_bytes()  # type: ignore[union-attr]
            except (EOFError, OSError):  # killed (memory, a signal)
                self._busy[connection] = job  # type: ignore[index]
                self._stop()
                return
            # Its next job first, then its answer: the worker works while the parent unpickles.
            self._hand_out(connection)  # type: ignore[arg-type]
            if not self._take(job, data):
                return

    def _take(self, job: list[FileSummary] | int, data: bytes) -> bool:
        """A worker's answer to ``job``; False when it failed there (the pool stops)."""
        kind, payload = pickle.loads(data)
        if isinstance(job, int):
            if kind != "project":  # it failed there: the parent lints it
                self._projects.appendleft(job)
                self._stop()
                return False
            assert self._on_project is not None
            self._on_project(job, payload)
        elif kind == "facts":  # else: facts too deep to pickle, extracted by the model
            assert self._extracting is not None
            for summary, (path, facts) in zip(job, payload):
                assert summary.path == path
                self._extracting.adopt_facts(summary, facts)
        return True

    def _stop(self) -> None:
        """A worker died or failed: the pool stops, and what was in flight is the parent's
        (facts to extract, projects to lint first)."""
        self._broken = True
        for job in self._busy.values():
            if isinstance(job, list):
                self._lost.extend(job)
            else:
                self._projects.appendleft(job)
        self._busy.clear()
        self._lost.extend(summary for chunk in self._chunks for summary in chunk)
        self._chunks.clear()
        self.close(now=True)

    def _start(self) -> None:
        context = multiprocessing.get_context("fork")
        _look_up_prctl()
        _hold_ending_signals()
        self._holds_ending_signals = True
        for _ in range(self.jobs - 1):  # the parent is the last
            parent_end, child_end = context.Pipe()
            _parent_ends.add(parent_end)
            process = context.Process(target=_worker, args=(child_end, self._lint_project, os.getpid()), daemon=True)
            process.start()
            child_end.close()
            self._workers.append((process, parent_end))

    def close(self, *, now: bool = False) -> None:
        """Stop the workers: when they are idle, or ``now``, whatever they are doing."""
        workers, self._workers = self._workers, []
        for process, connection in workers:
            try:
                if now:
                    process.kill()
                else:
                    connection.send(None)
            except OSError:
                pass
            _parent_ends.discard(connection)
            connection.close()
        for process, _connection in workers:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join()
        if self._holds_ending_signals:
            self._holds_ending_signals = False
            _release_ending_signals()


def lint_parallel(
    linter: Linter,
    paths: list[str],
    source: Callable[[int], SourceFile],
    weights: dict[int, int],
    jobs: int,
    on_result: Callable[[int, FileResult], None],
    between: Callable[[], None] | None = None,
    on_context: Callable[[list], None] | None = None,
) -> int:
    """Lint the files ``source(i)`` for ``i`` in ``weights`` (their sizes) with ``jobs``
    workers; ``on_result(i, r)`` is called in the parent as results arrive (in completion
    order). ``paths``: every file of the run by index, for workers that read them again.
    ``between``: called while the parent waits (a batch's run workers get their next
    project there). ``on_context``: called with what a worker's model read from outside
    the project (``outside.OutsideModules.lookups``). Returns how many of the files some
    rule needed a tree of."""
    global _worker_linter, _worker_source
    indices = list(weights)
    chunks = _chunks(indices, weights, jobs)
    trees = 0
    pending_indices = set(indices)
    use_fork = can_fork()
    if use_fork:
        _worker_linter, _worker_source = linter, source
        executor = ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=multiprocessing.get_context("fork"),
            initializer=_die_with_parent,
            initargs=(os.getpid(),),
        )
    else:
        executor = ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_spawned,
            initargs=(linter.config, paths, os.getpid()),
        )
    _look_up_prctl()
    _hold_ending_signals()  # the workers start at the first submit
    try:
        with executor:
            futures: set[Future] = {executor.submit(_lint_chunk, chunk) for chunk in chunks}
            while futures:
                done, futures = wait(futures, timeout=None if between is None else 0.05, return_when=FIRST_COMPLETED)
                if between is not None:
                    between()
                for future in done:
                    results, lookups = future.result()
                    if on_context is not None:
                        on_context(lookups)
                    for i, result, needs_tree in results:
                        pending_indices.discard(i)
                        trees += needs_tree
                        on_result(i, result)
    except BrokenProcessPool:
        pass  # finish serially below
    finally:
        _release_ending_signals()
        if use_fork:
            _worker_linter, _worker_source = None, None
    for i in sorted(pending_indices):
        result, needs_tree = lint_counting_tree(linter, source(i))
        trees += needs_tree
        on_result(i, result)
    return trees
