"""Per workspace folder: its configuration, one long-lived Linter, and the pyproject to watch.

Everything here runs on the analysis worker thread only.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from warp_ct.analyzer.engine import Linter, discover, read_source
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
        files = [read_source(p) for p in discover([str(self.root)], self.config)]
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
        self.settings = Settings()

    def configure(self, roots: list[Path], settings: Settings) -> None:
        """New roots or settings: rebuild every folder (linters start with fresh projects)."""
        self.roots = sorted({Path(normalize_path(str(r))) for r in roots}, key=lambda p: len(p.parts), reverse=True)
        self.settings = settings
        self._folders.clear()
        self._implicit.clear()

    def folder_for(self, path: str) -> Folder:
        real = Path(normalize_path(path))
        for root in self.roots:
            if real == root or root in real.parents:
                folder = self._folders.get(root)
                if folder is None:
                    folder = self._folders[root] = self._make(root, in_workspace=True)
                return folder
        start = real.parent
        folder = self._implicit.get(start)
        if folder is None:
            folder = self._implicit[start] = self._make(start, in_workspace=False)
        return folder

    def workspace_folders(self) -> list[Folder]:
        out = []
        for root in self.roots:
            folder = self._folders.get(root)
            if folder is None:
                folder = self._folders[root] = self._make(root, in_workspace=True)
            out.append(folder)
        return out

    def _make(self, root: Path, *, in_workspace: bool) -> Folder:
        config, problems = build_config(root, self.settings)
        known = set().union(*self._problems.values())
        for problem in problems:
            if problem in known:
                self._log(problem)
            else:
                self._show(problem)
        self._problems[root] = set(problems)
        folder = Folder(root=root, config=config, linter=Linter(config), in_workspace=in_workspace)
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
