"""What is analysed with a file: its project, found from the file, as mypy and pyright do.

Warp's costs are per process, and a process runs one project's code: a finding in one file
depends on the files of its own project (who calls a factory, who differentiates a module,
which options an entry point sets), never on another project that happens to be linted in
the same run. So the paths a user passes choose what is *reported*; each reported file is
*analysed* together with the files of its project:

- the nearest folder above the file that holds a ``pyproject.toml``, ``setup.py`` or
  ``setup.cfg`` is the project: every Python file under it, except the excluded ones and
  those of projects nested inside it (a vendored project, a test fixture with its own
  ``pyproject.toml``);
- without one, the folder that must be on ``sys.path`` for the file to import (the parent of
  its top package, or a script's own folder) is the project: the files directly in it and
  the packages under it, what a script there can import;
- an installed package (its top package under ``site-packages``/``dist-packages``) is a
  project of its own, not every distribution installed beside it.

``warp-ct lint a.py`` then reports for ``a.py`` what ``warp-ct lint .`` reports for it, and
one run over several projects reports the union of linting each alone.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from warp_ct.analyzer.project import package_root_for
from warp_ct.config import Config

PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")


@dataclass
class Scope:
    """One project: where it starts, whether a project file marks it, the reported files."""

    root: Path
    marked: bool  # a pyproject/setup file (all files under it) or a sys.path folder (its packages)
    reported: list[int] = field(default_factory=list)  # indexes into the run's reported files


def _holds_marker(folder: str) -> bool:
    return any(os.path.isfile(os.path.join(folder, name)) for name in PROJECT_MARKERS)


def _marked_ancestor(folder: str, cache: dict[str, str | None]) -> str | None:
    """The nearest folder at or above ``folder`` (absolute) that holds a project file. Each
    folder is looked at once per ``cache``: a run names hundreds of folders of one tree."""
    unanswered = []
    answer = None
    while True:
        if folder in cache:
            answer = cache[folder]
            break
        if _holds_marker(folder):
            answer = folder
            break
        unanswered.append(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    for below in unanswered:
        cache[below] = answer
    cache[folder] = answer
    return answer


# Folders of installed distributions: each top package under one is a project of its own.
INSTALLED_ROOTS = ("site-packages", "dist-packages")


def scope_root(path: str, cache: dict[str, str | None]) -> tuple[Path, bool]:
    """(root, marked) of the project ``path`` belongs to. ``cache``: what was found of
    folders (kept while the folders do not change)."""
    marked = _marked_ancestor(os.path.dirname(os.path.abspath(path)), cache)
    if marked is not None:
        return Path(marked), True
    root = package_root_for(Path(path))
    if root.name in INSTALLED_ROOTS:
        # An installed package is a project: not every distribution installed beside it.
        try:
            top = root / Path(os.path.abspath(path)).relative_to(os.path.abspath(root)).parts[0]
        except (ValueError, IndexError):
            top = root
        if top != root and top.is_dir():
            return top, True
    return root, False


def scopes_of(paths: Iterable[str]) -> list[Scope]:
    """The projects of the reported ``paths`` (by index), in order of their first file."""
    cache: dict[str, str | None] = {}
    by_folder: dict[str, tuple[Path, bool]] = {}  # the files of a folder share a project
    by_root: dict[tuple[Path, bool], Scope] = {}
    for index, path in enumerate(paths):
        folder = os.path.dirname(os.path.abspath(path))
        found = by_folder.get(folder)
        if found is None or os.path.islink(path):  # a linked file's package is its target's
            found = scope_root(path, cache)
            if not os.path.islink(path):
                by_folder[folder] = found
        root, marked = found
        scope = by_root.get((root, marked))
        if scope is None:
            scope = by_root[(root, marked)] = Scope(root, marked)
        scope.reported.append(index)
    return list(by_root.values())


def project_files(scope: Scope, config: Config) -> list[str]:
    """Every Python file analysed with the scope's reported files, sorted (unreadable folders
    are skipped here: only what is reported is reported as unread)."""
    found: list[str] = []
    root = scope.root
    top = os.fspath(root)
    for dirpath, dirnames, filenames in os.walk(top):
        kept = []
        for name in sorted(dirnames):
            sub = os.path.join(dirpath, name)
            if config.is_excluded(sub, top) or _holds_marker(sub):
                continue  # excluded, or a project of its own
            if not scope.marked and dirpath == top and not os.path.isfile(os.path.join(sub, "__init__.py")):
                continue  # beside a script: only packages are importable
            kept.append(name)
        dirnames[:] = kept
        for filename in sorted(filenames):
            if filename.endswith((".py", ".pyi")):
                candidate = os.path.join(dirpath, filename)
                if not config.is_excluded(candidate, top):
                    found.append(candidate)
    return sorted(found)
