"""Linting many files: discovery, result cache and parallel workers behind one call.

The run's projects (``scope``) are independent: with ``jobs`` > 1 the parent lints the
largest and the run's workers (``WorkerPool``) lint the others whole, each in one process.
Pipeline, per project: read every file -> look the named files up in the result cache
(keyed by the digests of the bytes read: a project with no change is answered here, nothing
summarised) -> summarise every file (regular expressions; the project view cross-file rules
need) -> the facts of the project's Warp files (in the parent, with the idle workers'
help) -> build the model -> gate and lint the misses (forked workers sharing the model
when ``jobs`` > 1 and there is enough, else inline, with only the files needing a tree in
workers) -> store the new results -> report in path order. Output never depends on
``jobs`` or on whether the cache was warm. In a large project, while the misses are linted,
every text but the current file's is kept packed in its summary (``FileSummary.pack_text``).
"""

from __future__ import annotations

import functools
import gc
import os
from pathlib import Path
from typing import Callable, Iterable

from warp_ct.analyzer.cache import FactsCache, ResultCache, project_digest, run_key
from warp_ct.analyzer.engine import Linter, SourceFile, read_source, read_sources
from warp_ct.analyzer.model import FileResult
from warp_ct.analyzer.outside import still_valid
from warp_ct.analyzer.parallel import (
    MIN_PARALLEL_FILES,
    MIN_PARALLEL_GATED_CHARS,
    WorkerPool,
    available_cores,
    can_fork,
    lint_one,
    lint_parallel,
)
from warp_ct.analyzer.project import deactivate, module_name_for, package_layout_fixed
from warp_ct.analyzer.scope import Scope, project_files, scopes_of
from warp_ct.analyzer.syntax import collector_ignores_existing, gc_paused
from warp_ct.config import Config
from warp_ct.fs import real_path


class LintStats:
    """What the last ``run_lint`` did (for benchmarks and ``--verbose`` style output)."""

    def __init__(self) -> None:
        self.files = 0
        self.cache_hits = 0
        self.trees = 0  # files some rule needed a tree of (cache misses only)
        self.facts_hits = 0  # files whose facts came from the cache (the facts cache)
        self.cache_problem: str | None = None  # why the cache was turned off, in one sentence
        self.jobs = 1

    def add(self, project: LintStats) -> None:
        """Count what a project linted in a worker process did."""
        self.cache_hits += project.cache_hits
        self.trees += project.trees
        self.facts_hits += project.facts_hits
        self.cache_problem = self.cache_problem or project.cache_problem


last_stats = LintStats()

# Characters of text in a project above which a batch keeps its texts compressed while it
# lints. Packing and unpacking cost 0.3-0.5 s per 20 MB of text (5% of a cold lint of Isaac
# Lab) and save about two thirds of it: worth it where the texts are a large part of the peak.
PACK_TEXTS_ABOVE = 24_000_000


def run_lint(
    paths: Iterable[str],
    config: Config,
    *,
    jobs: int | None = 1,
    cache_dir: Path | None = None,
    on_file: Callable[[FileResult], None] | None = None,
) -> list[FileResult]:
    """Lint ``paths`` (files or directories) and return one result per file, in path order.

    Each file is analysed with the files of its project (``scope``), whatever else was
    named: the paths choose what is reported, not what is analysed.
    ``jobs``: worker processes (None or 0: available cores); output order never depends on it.
    ``cache_dir``: content-hash result cache directory (None: no cache).
    ``on_file``: called with each result, in path order, as soon as it and all results
    before it are known.
    """
    global last_stats
    stats = LintStats()
    last_stats = stats
    workers = available_cores() if not jobs else max(1, int(jobs))
    with package_layout_fixed():  # a batch's folders do not change under it
        reported = read_sources(list(paths), config)
        stats.files = len(reported)
        scopes = scopes_of(source.path for source in reported)
        results: list[FileResult | None] = [None] * len(reported)
        emitted = 0

        def record(index: int, scope_results: list[FileResult], counts: LintStats | None = None) -> None:
            nonlocal emitted
            for i, result in zip(scopes[index].reported, scope_results):
                results[i] = result
            if counts is not None:  # linted in a worker
                stats.add(counts)
                stats.jobs = workers
            while emitted < len(results) and results[emitted] is not None:
                if on_file is not None:
                    on_file(results[emitted])  # type: ignore[arg-type]
                emitted += 1

        def take_files(index: int) -> list[SourceFile]:
            files = [reported[i] for i in scopes[index].reported]
            for i in scopes[index].reported:
                reported[i] = None  # type: ignore[call-overload]  # the scope's list holds the texts now
            return files

        def lint_in_worker(index: int) -> tuple[list[FileResult], LintStats]:
            counts = LintStats()
            return _lint_scope(scopes[index], take_files(index), config, counts, WorkerPool(1), cache_dir), counts

        pool = WorkerPool(workers, lint_in_worker, lambda index, outcome: record(index, *outcome))
        # The largest first: the run ends when its longest project does, and its peak is that
        # project's. The memory a smaller project frees before it does not all come back to it
        # (the corpus at -j 1 in path order, warp-lang before newton: 420 MiB; newton first: 389).
        costs = {index: _estimated_cost(reported, scope) for index, scope in enumerate(scopes)}
        pool.add_projects(dict(sorted(costs.items(), key=lambda item: -item[1])))
        try:
            while (index := pool.next_project()) is not None:
                record(index, _lint_scope(scopes[index], take_files(index), config, stats, pool, cache_dir))
        except BaseException:
            pool.close(now=True)
            raise
        finally:
            pool.close()
        return [r for r in results if r is not None]


def _estimated_cost(reported: list[SourceFile], scope: Scope) -> int:
    """What linting a project costs, roughly: the characters of its named files that mention
    Warp (the others are summarised only)."""
    return sum(len(text) for i in scope.reported if (text := reported[i].text) is not None and "warp" in text)


def _lint_scope(scope: Scope, files: list[SourceFile], config: Config, stats: LintStats, pool: WorkerPool,
                cache_dir: Path | None) -> list[FileResult]:  # fmt: skip
    """Lint the reported ``files`` of one project, with the rest of the project read for the model."""
    relative = any(not os.path.isabs(source.path) for source in files)
    named = {real_path(source.path) for source in files}  # the scope's root may be resolved
    context = []
    for path in project_files(scope, config):
        if real_path(path) not in named:
            source = read_source(os.path.relpath(path) if relative else path)
            if source.text is not None:  # what cannot be read is reported only where it was named
                context.append(source)
    linter = Linter(config)
    linter.project.root = os.path.realpath(scope.root)  # where the project lives makes no file a test
    cache: ResultCache | None = None
    hits: dict[int, FileResult] = {}
    if cache_dir is not None:
        cache = ResultCache(cache_dir, run_key(config, [r.code for r in linter.rules]), _digest_of(files + context),
                            context_valid=functools.partial(still_valid, linter.project.root))  # fmt: skip
        hits = _cached_results(cache, files)
        # Kept for the files read only for the model: a later run that names a few files
        # (pre-commit) reads the rest from here. A run over the whole project stores nothing
        # (pickling every file's facts cost 43% of a cold lint of isaac-lab).
        linter.project.facts_cache = FactsCache(cache_dir, store={source.path for source in context})
    try:
        if len(hits) < sum(source.text is not None for source in files):
            # Something changed: the project is summarised. All hits need none of it.
            # One order for the project's files whatever was named: module names claimed first win.
            linter.add_to_project(sorted([*files, *context], key=lambda source: os.path.abspath(source.path)))
            linter.project.freeze()  # the file set of a batch is final
            context.clear()  # the summaries hold the texts (``_lint_files`` may pack them)
        with collector_ignores_existing():
            results = _lint_files(linter, files, stats, pool, cache, hits)
        if cache is not None:
            if linter.project.outside is not None:
                cache.add_context(linter.project.outside.lookups())
            cache.flush()
        return results
    finally:
        deactivate(linter.project)
        facts_cache = linter.project.facts_cache
        if facts_cache is not None:
            stats.facts_hits += facts_cache.hits
        for folder in (cache, facts_cache):
            stats.cache_problem = stats.cache_problem or (folder.problem if folder is not None else None)


def _digest_of(sources: list[SourceFile]) -> str:
    """The project digest of the readable ``sources`` (see ``cache``)."""
    return project_digest(
        (source.path, module_name_for(Path(source.path)), source.digest)
        for source in sources
        if source.text is not None and source.digest is not None
    )


def _cached_results(cache: ResultCache, files: list[SourceFile]) -> dict[int, FileResult]:
    """The stored result of each readable file that has one, by index."""
    hits = {}
    for i, source in enumerate(files):
        if source.text is not None and source.digest is not None:
            hit = cache.get(cache.key(source.path, source.digest), source.path)
            if hit is not None:
                hits[i] = hit
    return hits


def _lint_files(
    linter: Linter,
    files: list,
    stats: LintStats,
    pool: WorkerPool,
    cache: ResultCache | None,
    hits: dict[int, FileResult],
) -> list[FileResult]:
    project = linter.project
    keys: list[str | None] = [None] * len(files)
    results: list[FileResult | None] = [None] * len(files)
    paths = [source.path for source in files]  # by index, for workers that read the files again
    digests = [source.digest for source in files]  # of the bytes read: what the findings are about

    def deliver(i: int, result: FileResult) -> None:
        result.source_digest = digests[i]
        results[i] = result
        if cache is not None and keys[i] is not None:
            cache.put(keys[i], result)  # type: ignore[arg-type]

    misses: list[int] = []
    for i, source in enumerate(files):
        if i in hits:
            stats.cache_hits += 1
            deliver(i, hits[i])
        elif source.text is None:
            deliver(i, lint_one(linter, source))
        else:
            if cache is not None:
                keys[i] = cache.key(source.path, source.digest)
            misses.append(i)
    if not misses:
        return [r for r in results if r is not None]

    if any(project.uses_warp(project.files[files[i].path]) for i in misses):  # the model will be built
        stats.jobs = max(stats.jobs, pool.extract(project))

    # From here on each file is worked on alone: in a large project its text stays packed
    # in its summary except while it is gated and linted (the model reads every file once,
    # packed or not: packing them as the model reads them instead raised the peak by 17 MiB
    # on the corpus). Below PACK_TEXTS_ABOVE packing costs more time than it saves memory.
    summaries = {i: project.files[files[i].path] for i in misses}
    files.clear()  # the scope's list: the summaries hold the texts
    packing = sum(summary.size for summary in project.files.values()) > PACK_TEXTS_ABOVE
    if packing:
        for summary in project.files.values():
            summary.pack_text()

    def source_at(i: int) -> SourceFile:
        return SourceFile(summaries[i].path, summaries[i].hold_text())

    warp_misses = []
    for i in misses:
        if project.uses_warp(summaries[i]):
            warp_misses.append(i)
        else:
            deliver(i, FileResult(summaries[i].path))  # what the linter answers for it, text unread
    workers = pool.jobs
    if workers > 1 and can_fork() and sum(summaries[i].size for i in warp_misses) >= MIN_PARALLEL_GATED_CHARS:
        # Gates and rules in forked workers that share the model, built here first: the
        # gates ask program-wide questions a worker answers from its copy.
        linter.prepare_shared_answers(between=pool.tend)
        gc.freeze()  # the model is acyclic: the workers' collections need not walk it
        stats.jobs = max(stats.jobs, workers)
        stats.trees += lint_parallel(linter, paths, source_at, {i: summaries[i].size for i in warp_misses}, workers, deliver,
                                     between=pool.tend, on_context=cache.add_context if cache is not None else None)  # fmt: skip
        return [r for r in results if r is not None]

    heavy: list[int] = []
    # The model, the gates and the queries build acyclic data only (no astroid): the
    # collector stays off until the tree rules run; what they keep is then out of its view.
    with gc_paused():
        for i in warp_misses:
            source = source_at(i)
            if linter.active_rules(source.path, source.text):
                heavy.append(i)
            else:
                deliver(i, lint_one(linter, source))
            if packing:
                summaries[i].pack_text()
            pool.tend()  # a worker done with its project gets the next
        gc.freeze()
    stats.trees += len(heavy)

    workers = min(workers, len(heavy))
    if workers > 1 and len(heavy) >= MIN_PARALLEL_FILES:
        stats.jobs = max(stats.jobs, workers)
        lint_parallel(linter, paths, source_at, {i: summaries[i].size for i in heavy}, workers, deliver, between=pool.tend,
                      on_context=cache.add_context if cache is not None else None)  # fmt: skip
    else:
        for i in heavy:
            deliver(i, lint_one(linter, source_at(i)))
            if packing:
                summaries[i].pack_text()
            pool.tend()
    return [r for r in results if r is not None]
