"""Per project in a workspace folder: its configuration, one long-lived Linter, and the
pyproject to watch. A document is analysed with the files of its own project (the
nearest pyproject/setup folder inside the workspace folder, ``analyzer.scope``), as
``warp-ct lint`` analyses it: two projects opened as one workspace do not mix.

Everything here runs on the analysis worker thread only.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from warp_ct.analyzer.engine import Linter, discover, read_source
from warp_ct.analyzer.scope import Scope, project_files, scope_root
from warp_ct.config import Config
from warp_ct.server.settings import Settings, build_config


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


@dataclass
class Folder:
    root: Path
    config: Config
    linter: Linter
    in_workspace: bool  # False: an implicit folder for a file outside every workspace folder
    # How ``root`` holds its project's files: True, a pyproject/setup folder (all files under
    # it but nested projects); False, a sys.path folder (its files and packages); None, the
    # whole workspace folder (a project that starts above it).
    marked: bool | None = None
    project_loaded: bool = False
    watched: dict[Path, float | None] = field(default_factory=dict)

    def watch_paths(self) -> list[Path]:
        paths = [self.root / "pyproject.toml"]
        if self.config.source is not None and self.config.source not in paths:
            paths.append(self.config.source)
        return paths

    def snapshot_watched(self) -> None:
        self.watched = {p: _mtime(p) for p in self.watch_paths()}

    def watched_changed(self) -> bool:
        return any(_mtime(p) != m for p, m in self.watched.items())

    def load_project(self) -> int:
        """Add every Python file of the folder to the project view (once, lazily)."""
        if self.project_loaded or not self.in_workspace:
            self.project_loaded = True
            return 0
        self.project_loaded = True
        if self.marked is None:
            paths = discover([str(self.root)], self.config)
        else:
            paths = project_files(Scope(self.root, self.marked), self.config)
        files = [read_source(p) for p in paths]
        self.linter.add_to_project(files)
        return len(files)


def normalize_path(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


class Folders:
    """Workspace folders by root; documents map to the deepest folder containing them."""

    def __init__(self, log: Callable[[str], None], show: Callable[[str], None]) -> None:
        self._log = log
        self._show = show  # shows the user a message (and logs it)
        # Each folder's configuration problems at its last build (by root, across rebuilds): a
        # problem is shown when it appears and only logged while it persists, since one save of
        # a pyproject can rebuild a folder twice (the file watcher and the poller) and a broken
        # pyproject above the workspace is met by every implicit folder under it.
        self._problems: dict[Path, set[str]] = {}
        self.roots: list[Path] = []
        self._folders: dict[Path, Folder] = {}
        self._implicit: dict[Path, Folder] = {}
        self._markers: dict[str, str | None] = {}  # folder -> its nearest folder with a project file (scope_root)
        self.settings = Settings()

    def configure(self, roots: list[Path], settings: Settings) -> None:
        """New roots or settings: rebuild every folder (linters start with fresh projects)."""
        self.roots = sorted({Path(normalize_path(str(r))) for r in roots}, key=lambda p: len(p.parts), reverse=True)
        self.settings = settings
        self._folders.clear()
        self._implicit.clear()
        self._markers.clear()

    def folder_for(self, path: str) -> Folder:
        real = Path(normalize_path(path))
        for root in self.roots:
            if real == root or root in real.parents:
                project, marked = scope_root(str(real), self._markers)
                inside = project == root or root in project.parents
                key = project if inside else root
                folder = self._folders.get(key)
                if folder is None:
                    folder = self._folders[key] = self._make(key, in_workspace=True, marked=marked if inside else None)
                return folder
        start = real.parent
        folder = self._implicit.get(start)
        if folder is None:
            folder = self._implicit[start] = self._make(start, in_workspace=False)
        return folder

    def _make(self, root: Path, *, in_workspace: bool, marked: bool | None = None) -> Folder:
        config, problems = build_config(root, self.settings)
        known = set().union(*self._problems.values())
        for problem in problems:
            if problem in known:
                self._log(problem)
            else:
                self._show(problem)
        self._problems[root] = set(problems)
        linter = Linter(config)
        linter.project.root = os.path.realpath(root)  # where the folder lives makes no file a test
        folder = Folder(root=root, config=config, linter=linter, in_workspace=in_workspace, marked=marked)
        folder.snapshot_watched()
        return folder

    def changed_configs(self) -> list[Folder]:
        """Folders whose pyproject changed on disk since they were configured."""
        return [f for f in [*self._folders.values(), *self._implicit.values()] if f.watched_changed()]

    def drop(self, folders: list[Folder]) -> None:
        for folder in folders:
            for table in (self._folders, self._implicit):
                for key, value in list(table.items()):
                    if value is folder:
                        del table[key]
