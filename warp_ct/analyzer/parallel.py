"""Lint files in worker processes; results come back keyed by index so order never changes.

Each worker needs the same project view (every file's summary, and the texts astroid's
import hook parses when inference follows an import). Where ``fork`` is available and
the process has no other threads, workers inherit the parent's ``Linter`` (summaries
already built, copy-on-write: nothing is pickled but the results). Elsewhere (spawn), each
worker re-reads and re-summarises the files in its initializer: regular expressions over
the text, cheap next to the trees it then builds.

Before that, the facts the program model joins (a parse and a walk of every Warp file, the
larger part of a cold lint) are extracted by workers forked once the project's summaries
are read (``extract_facts_parallel``); the facts come back pickled, and the tree workers
are forked after the model is built from them. Without ``fork``, the model extracts them
in the parent as before.

A worker that dies (``BrokenProcessPool``: killed for memory, a segfault in a C extension)
does not lose the run: every file whose result did not come back is linted again serially
in the parent.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Sequence

from warp_ct.analyzer.engine import Linter, SourceFile, read_source
from warp_ct.analyzer.facts import FileFacts
from warp_ct.analyzer.model import FileResult
from warp_ct.analyzer.project import Project
from warp_ct.analyzer.syntax import gc_paused
from warp_ct.config import Config

# Below this many files that need a tree, a pool costs more than it saves.
MIN_PARALLEL_FILES = 8

# Below this many characters of text to extract facts from, a pool costs more than it saves
# (extraction runs at about 3 MB/s; a pool cost 0.2-0.3 s in Isaac Lab's small scopes, where
# 1.5 MB of facts took 0.54 s in workers against about 0.5 s serially).
MIN_PARALLEL_FACTS_CHARS = 2_000_000

_worker_linter: Linter | None = None
_worker_project: Project | None = None
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


def _lint_chunk(indices: list[int]) -> list[tuple[int, FileResult]]:
    linter, source = _worker_linter, _worker_source
    assert linter is not None and source is not None, "worker not initialised"
    return [(i, lint_one(linter, source(i))) for i in indices]


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


def _facts_chunk(paths: list[str]) -> list[tuple[str, FileFacts, bool]]:
    project = _worker_project
    assert project is not None, "worker not initialised"
    out = []
    for path in paths:
        stored = project.facts_cache
        hits = stored.hits if stored is not None else 0
        facts = project.facts(project.files[path])
        out.append((path, facts, stored is not None and stored.hits > hits))
    return out


def extract_facts_parallel(project: Project, jobs: int) -> int:
    """Extract the facts ``project.program()`` will join in ``jobs`` forked workers (the
    facts come back pickled), when there are enough to pay for the pool; returns the
    workers used (1: none, the model extracts them as it is built). A broken pool leaves
    what did not come back to the model. The facts, and so the output, are those the
    parent would have extracted: the same code runs on the same summaries.

    The parent only gathers (unpickling the facts is about an eighth of extracting them):
    on 2 cores, the parent extracting the smallest files beside one worker took 13-15 s
    where two workers took 12.5 s (warp-lang, mujoco-warp and newton)."""
    global _worker_project
    if jobs < 2 or not can_fork():
        return 1
    todo = [s for s in project.program_members() if not project.has_facts(s)]
    weights = {i: s.size for i, s in enumerate(todo)}
    if len(todo) < MIN_PARALLEL_FILES or sum(weights.values()) < MIN_PARALLEL_FACTS_CHARS:
        return 1
    by_path = {s.path: s for s in todo}
    # Small chunks: the workers finish together.
    chunks = [[todo[i].path for i in chunk] for chunk in _chunks(list(weights), weights, jobs, per_worker=16)]
    stored = project.facts_cache
    _worker_project = project
    try:
        # The facts are acyclic: nothing for the collector to find as they are unpickled.
        with gc_paused(), ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork")) as executor:
            for future in [executor.submit(_facts_chunk, chunk) for chunk in chunks]:
                try:
                    done = future.result()
                except Exception:  # noqa: BLE001 - a dead worker, facts too deep to pickle: the model extracts them
                    continue
                for path, facts, hit in done:
                    project.adopt_facts(by_path[path], facts)
                    if hit and stored is not None:
                        stored.hits += 1
    finally:
        _worker_project = None
    return jobs


def lint_parallel(
    linter: Linter,
    paths: list[str],
    source: Callable[[int], SourceFile],
    weights: dict[int, int],
    jobs: int,
    on_result: Callable[[int, FileResult], None],
) -> None:
    """Lint the files ``source(i)`` for ``i`` in ``weights`` (their sizes) with ``jobs``
    workers; ``on_result(i, r)`` is called in the parent as results arrive (in completion
    order). ``paths``: every file of the run by index, for workers that read them again."""
    global _worker_linter, _worker_source
    indices = list(weights)
    chunks = _chunks(indices, weights, jobs)
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
                    for i, result in future.result():
                        pending_indices.discard(i)
                        on_result(i, result)
    except BrokenProcessPool:
        pass  # finish serially below
    finally:
        if use_fork:
            _worker_linter, _worker_source = None, None
    for i in sorted(pending_indices):
        on_result(i, lint_one(linter, source(i)))
