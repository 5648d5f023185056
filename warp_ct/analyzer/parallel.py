"""Lint files in worker processes; results come back keyed by index so order never changes.

Each worker needs the same project view (every file's summary, and the texts astroid's
import hook parses when inference follows an import). Where ``fork`` is available and
the process has no other threads, workers inherit the parent's ``Linter`` (summaries
already built, copy-on-write: nothing is pickled but the results). Elsewhere (spawn), each
worker re-reads and re-summarises the files in its initializer: regular expressions over
the text, cheap next to the trees it then builds.

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
from warp_ct.analyzer.model import FileResult
from warp_ct.config import Config

# Below this many files that need a tree, a pool costs more than it saves.
MIN_PARALLEL_FILES = 8

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


def _chunks(indices: Sequence[int], weights: dict[int, int], jobs: int) -> list[list[int]]:
    """Balanced chunks: largest files first, about 4 chunks per worker, heavy files alone."""
    order = sorted(indices, key=lambda i: -weights[i])
    total = sum(weights[i] for i in order) or 1
    target = max(total / (jobs * 4), 1)
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
    use_fork = "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1
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
