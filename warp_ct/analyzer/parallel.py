"""Lint files in worker processes; results come back keyed by index so order never changes.

Each worker needs the same project view (every file's summary, and the texts astroid's
import hook parses when inference follows an import). Where ``fork`` is available and
the process has no other threads, workers inherit the parent's ``Linter`` (summaries
already built, copy-on-write: nothing is pickled but the results). Elsewhere (spawn), each
worker re-reads and re-summarises the files in its initializer: regular expressions over
the text, cheap next to the trees it then builds.

Before that, the facts the program model joins (a parse and a walk of every Warp file, the
larger part of a cold lint) are extracted by workers forked once per run (``FactsPool``);
the facts come back pickled, and the tree workers are forked after each project's model is
built from them. Without ``fork``, the model extracts them in the parent.

A worker that dies (``BrokenProcessPool``: killed for memory, a segfault in a C extension)
does not lose the run: every file whose result did not come back is linted again serially
in the parent.
"""

from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import threading
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

_worker_linter: Linter | None = None
_worker_source: Callable[[int], SourceFile] | None = None  # file index -> the file, text included


def available_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _init_spawned(config: Config, paths: list[str]) -> None:
    global _worker_linter, _worker_source
    files = [read_source(p) for p in paths]
    linter = Linter(config)
    linter.add_to_project(files)
    _worker_linter, _worker_source = linter, files.__getitem__


def _lint_chunk(indices: list[int]) -> list[tuple[int, FileResult, bool]]:
    """(index, result, whether a rule needed its tree) of each file."""
    linter, source = _worker_linter, _worker_source
    assert linter is not None and source is not None, "worker not initialised"
    return [(i, *lint_counting_tree(linter, source(i))) for i in indices]


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


def _facts_worker(connection: Connection) -> None:
    """A facts worker's loop: a chunk in, its facts out, until the parent says stop (None)
    or goes away."""
    # Ctrl-C reaches the whole process group: the parent stops the run, and then its workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # What the fork copied is never read here: a collection walking it would copy its pages.
    gc.freeze()
    while True:
        try:
            items = connection.recv()
        except (EOFError, OSError):
            return
        if items is None:
            return
        try:
            reply: tuple[str, Any] = ("facts", _facts_chunk(items))
            connection.send(reply)
        except Exception as exc:  # noqa: BLE001 - facts too deep to pickle: the parent's model extracts them
            connection.send(("failed", f"{type(exc).__name__}: {exc}"))


class FactsPool:
    """Extracts the facts the program models join with ``jobs - 1`` workers beside the
    parent, for every project of a run.

    The workers are forked once, at the first project with enough facts to extract, and
    kept to the end of the run: Isaac Lab's 25 projects each paid 0.2-0.3 s for a pool of
    their own, so those under 2 MB extracted serially, a fifth of the facts. A worker gets
    texts and module names (``compute_facts`` depends on nothing else) and sends the facts
    back pickled; the facts cache is read and written in the parent. The facts, and so the
    output, are those the parent would have extracted. Plain processes and pipes, no
    threads: the tree workers are forked later in the same run, and forking beside threads
    is unsafe.

    The parent extracts too. Pickling and unpickling the facts cost a third of extracting
    them (Isaac Lab: 5.2 s to extract, 0.5 s to pickle, 0.4-1.0 s to unpickle), so on 2
    cores a parent that only gathered from two workers competed with them for a core and
    took 4.2-4.9 s; extracting half itself, it pickles nothing for that half. It takes the
    smallest chunks and, between files, hands each idle worker the next largest (one chunk
    in flight per worker: a send never waits on a worker that is itself sending)."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self._workers: list[tuple[BaseProcess, Connection]] = []
        self._broken = False

    def extract(self, project: Project) -> int:
        """Extract the facts ``project.program()`` will join that the facts cache does not
        hold; returns the processes used (1: none, the model extracts them as it is built).
        A dead worker leaves what did not come back to the parent, and this run's later
        projects to the model."""
        if self.jobs < 2 or self._broken or not (self._workers or can_fork()):
            return 1
        todo = [s for s in project.program_members() if not project.has_facts(s) and project.stored_facts(s) is None]
        weights = {i: s.size for i, s in enumerate(todo)}
        threshold = MIN_PARALLEL_FACTS_CHARS_WARM if self._workers else MIN_PARALLEL_FACTS_CHARS
        if len(todo) < MIN_PARALLEL_FILES or sum(weights.values()) < threshold:
            return 1
        if not self._workers:
            self._start()
        skeleton = project.extracts_skeletons
        chunks = deque([todo[i] for i in chunk] for chunk in _chunks(list(weights), weights, self.jobs, per_worker=32))
        busy: dict[Connection, list[FileSummary]] = {}
        received: list[tuple[list[FileSummary], bytes]] = []
        lost: list[FileSummary] = []  # sent to a worker that died: extracted here

        def hand_out(connection: Connection) -> None:
            if not chunks or self._broken:
                return
            chunk = chunks.popleft()  # the largest left
            try:
                connection.send([(s.path, s.text, s.module_name, skeleton) for s in chunk])
            except OSError:  # a dead worker
                self._broken = True
                lost.extend(chunk)
                return
            busy[connection] = chunk

        def take_ready(timeout: float | None) -> None:
            # A worker's send waits until its message is read: read it at once, unpickle later.
            for connection in multiprocessing.connection.wait(list(busy), timeout=timeout):
                chunk = busy.pop(connection)  # type: ignore[call-overload]
                try:
                    received.append((chunk, connection.recv_bytes()))  # type: ignore[union-attr]
                except (EOFError, OSError):  # killed (memory, a signal)
                    self._broken = True
                    lost.extend(chunk)
                    continue
                hand_out(connection)  # type: ignore[arg-type]

        # The facts are acyclic: nothing for the collector to find as they are unpickled.
        with gc_paused():
            try:
                for _process, connection in self._workers:
                    hand_out(connection)
                while chunks:
                    for summary in chunks.pop():  # the smallest left
                        project.facts(summary)
                        if busy:
                            take_ready(0)
                while busy:
                    take_ready(None)
            except BaseException:  # Ctrl-C, or an error here: no worker's reply may be read as another's
                self._broken = True
                self.close(now=True)
                raise
            for chunk, data in received:
                kind, payload = pickle.loads(data)
                if kind == "facts":  # else: facts too deep to pickle, extracted by the model
                    for summary, (path, facts) in zip(chunk, payload):
                        assert summary.path == path
                        project.adopt_facts(summary, facts)
            for summary in lost:
                project.facts(summary)
        if self._broken:
            self.close()
        return self.jobs

    def _start(self) -> None:
        context = multiprocessing.get_context("fork")
        for _ in range(self.jobs - 1):  # the parent is the last
            parent_end, child_end = context.Pipe()
            process = context.Process(target=_facts_worker, args=(child_end,), daemon=True)
            process.start()
            child_end.close()
            self._workers.append((process, parent_end))

    def close(self, *, now: bool = False) -> None:
        """Stop the workers: between chunks (they are all idle then), or ``now``, whatever
        they are doing."""
        workers, self._workers = self._workers, []
        for process, connection in workers:
            try:
                if now:
                    process.kill()
                else:
                    connection.send(None)
            except OSError:
                pass
            connection.close()
        for process, _connection in workers:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join()


def lint_parallel(
    linter: Linter,
    paths: list[str],
    source: Callable[[int], SourceFile],
    weights: dict[int, int],
    jobs: int,
    on_result: Callable[[int, FileResult], None],
) -> int:
    """Lint the files ``source(i)`` for ``i`` in ``weights`` (their sizes) with ``jobs``
    workers; ``on_result(i, r)`` is called in the parent as results arrive (in completion
    order). ``paths``: every file of the run by index, for workers that read them again.
    Returns how many of the files some rule needed a tree of."""
    global _worker_linter, _worker_source
    indices = list(weights)
    chunks = _chunks(indices, weights, jobs)
    trees = 0
    pending_indices = set(indices)
    use_fork = can_fork()
    if use_fork:
        _worker_linter, _worker_source = linter, source
        executor = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork"))
    else:
        executor = ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_spawned,
            initargs=(linter.config, paths),
        )
    try:
        with executor:
            futures: set[Future] = {executor.submit(_lint_chunk, chunk) for chunk in chunks}
            while futures:
                done, futures = wait(futures, return_when=FIRST_COMPLETED)
                for future in done:
                    for i, result, needs_tree in future.result():
                        pending_indices.discard(i)
                        trees += needs_tree
                        on_result(i, result)
    except BrokenProcessPool:
        pass  # finish serially below
    finally:
        if use_fork:
            _worker_linter, _worker_source = None, None
    for i in sorted(pending_indices):
        result, needs_tree = lint_counting_tree(linter, source(i))
        trees += needs_tree
        on_result(i, result)
    return trees
