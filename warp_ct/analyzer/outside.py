"""Modules a project imports from outside it, read as read-only context for kernel questions.

A process that runs a project's code imports the packages the project imports: a test tree
with its own ``pyproject.toml`` launches kernels of the library beside it (Isaac Lab's
``source/isaaclab/test`` and ``isaaclab``), an application launches kernels of another
distribution (nvalchemi-toolkit and ``nvalchemiops``). Warp's costs are per process, so
where such a kernel lands (its Warp module, its other kernels, whether it is generic) is
part of the project's program. This module finds and reads those modules, and nothing more:

- only a top-level package the project does not hold is looked for (never ``warp``, whose
  names the model reads as Warp's API), in this order:

  1. the folders above the project's root, nearest first, up to the repository (the folder
     holding ``.git``) or ``MAX_LEVELS`` folders up: a package ``X/__init__.py`` directly in
     such a folder, or in a sibling project of one (``<folder>/<proj>/X/__init__.py`` where
     ``<proj>`` holds a project file); two sibling projects holding ``X`` at one level are
     ambiguous, and nothing is found there;
  2. the running interpreter's ``sys.path`` (its current folder left out: what the context
     is must not depend on where warp-ct runs), as ``importlib.machinery.PathFinder`` finds
     a top-level package, without importing anything;

- a module is read when a kernel question asks for it (``facts``), once, and only its own
  file: its facts are extracted as a project file's are, never reported, and the model never
  counts them as callers or launchers of the project's modules;
- what was looked up, and what each lookup found (a path and the digest of its bytes, or
  nothing), is kept (``lookups``): a cached result stays valid while every lookup finds the
  same (``still_valid``).

Nothing is executed, and nothing read is unpickled: the text is parsed like a project file's.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import sys
from typing import Callable

from warp_ct.analyzer.facts import FileFacts

MAX_LEVELS = 3  # folders above a project's root searched for packages, at most (Isaac Lab's source/<proj>/test needs 3)
MAX_CONTEXT_BYTES = 2_000_000  # a larger file is not read as context (generated code)
_PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")
NOT_CONTEXT = frozenset({"warp", "warp_ct", "__future__", "builtins"})  # names the model reads otherwise

# (module name, path found or None, sha256 of its bytes or None)
Lookup = tuple[str, "str | None", "str | None"]


def _is_package(folder: str) -> bool:
    return os.path.isfile(os.path.join(folder, "__init__.py"))


def _holds_marker(folder: str) -> bool:
    return any(os.path.isfile(os.path.join(folder, name)) for name in _PROJECT_MARKERS)


def folders_above(root: str) -> list[str]:
    """The folders above ``root`` searched for packages, nearest first: up to the one holding
    ``.git`` (included), at most ``MAX_LEVELS``."""
    out: list[str] = []
    folder = os.path.realpath(root)
    if os.path.isdir(os.path.join(folder, ".git")) or os.path.isfile(os.path.join(folder, ".git")):
        return out  # the project is the repository: nothing above it is its
    for _ in range(MAX_LEVELS):
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
        out.append(folder)
        if os.path.exists(os.path.join(folder, ".git")):
            break
    return out


def _package_in(folder: str, top: str) -> str | None:
    """``folder/top`` when it is a package, else the one sibling project of ``folder`` that
    holds ``top`` as a package (None: none, or several)."""
    direct = os.path.join(folder, top)
    if _is_package(direct):
        return direct
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return None
    found = [
        candidate
        for name in names
        if not name.startswith(".")
        and os.path.isdir(project := os.path.join(folder, name))
        and _holds_marker(project)
        and _is_package(candidate := os.path.join(project, top))
    ]
    return found[0] if len(found) == 1 else None


def search_path() -> list[str]:
    """``sys.path`` without the current folder (``""`` or its absolute name): installed
    packages and the folders the user put on the path."""
    here = os.path.realpath(os.getcwd())
    return [entry for entry in sys.path if entry and os.path.realpath(entry) != here]


def installed_package(top: str, path: list[str]) -> str | None:
    """The folder of a top-level package ``top`` on ``path``, as the import system finds it
    (``PathFinder.find_spec``: finders of the path entries, nothing imported or run). A
    namespace package, a compiled module or a single file is no package read here."""
    try:
        spec = importlib.machinery.PathFinder.find_spec(top, path)
    except (ImportError, ValueError, OSError):
        return None
    if spec is None or not spec.submodule_search_locations or not isinstance(spec.origin, str):
        return None
    if os.path.basename(spec.origin) != "__init__.py":
        return None
    return os.path.dirname(spec.origin)


def module_file(package: str, parts: list[str]) -> str | None:
    """The source file of submodule ``parts`` of the package folder ``package`` (the
    package's ``__init__.py`` itself for no parts)."""
    folder = package
    for part in parts[:-1]:
        folder = os.path.join(folder, part)
        if not os.path.isdir(folder):
            return None
    if not parts:
        return os.path.join(package, "__init__.py")
    last = os.path.join(folder, parts[-1])
    for candidate in (os.path.join(last, "__init__.py"), last + ".py"):
        if os.path.isfile(candidate):
            return candidate
    return None


class OutsideModules:
    """The modules a project at ``root`` may import from outside it (see the module
    docstring), read on demand. ``held``: whether the project itself holds a top-level
    package (those are never looked for); ``extract``: a file's facts from (path, text, module
    name)."""

    def __init__(self, root: str | None, held: Callable[[str], bool],
                 extract: Callable[[str, str, str], FileFacts | None],
                 path: list[str] | None = None) -> None:  # fmt: skip
        self._above = folders_above(root) if root else []
        self._held = held
        self._extract = extract
        self._path = search_path() if path is None else path
        self._packages: dict[str, str | None] = {}  # top-level name -> its folder
        self._facts: dict[str, FileFacts | None] = {}
        self._lookups: dict[str, Lookup] = {}

    def facts(self, module: str) -> FileFacts | None:
        """The facts of ``module`` when it is a context module, read once; None otherwise
        (a project module, ``warp``, not found, unreadable)."""
        if module in self._facts:
            return self._facts[module]
        found = None
        if self._looked_for(module):  # what is found (or not) decides: kept for a cache
            path = self.locate(module)
            text, digest = _read(path) if path is not None else (None, None)
            self._lookups[module] = (module, path, digest)
            if text is not None and path is not None:
                found = self._extract(path, text, module)
        self._facts[module] = found
        return found

    def _looked_for(self, module: str) -> bool:
        """Whether ``module`` may be found outside the project: a name of identifiers only
        (never a path, ``a./etc``, joined to a folder), not ``warp``'s, of a top-level
        package the project does not hold."""
        top, *parts = module.split(".")
        return top not in NOT_CONTEXT and all(part.isidentifier() for part in (top, *parts)) and not self._held(top)

    def locate(self, module: str) -> str | None:
        """The file of ``module`` outside the project, or None."""
        if not self._looked_for(module):
            return None
        top, *parts = module.split(".")
        if top not in self._packages:
            self._packages[top] = self._package(top)
        package = self._packages[top]
        return module_file(package, parts) if package is not None else None

    def _package(self, top: str) -> str | None:
        for folder in self._above:
            found = _package_in(folder, top)
            if found is not None:
                return found
        return installed_package(top, self._path)

    def lookups(self) -> list[Lookup]:
        """Every module looked up so far and what was found, in a stable order."""
        return sorted(self._lookups.values(), key=lambda lookup: lookup[0])


def _read(path: str) -> tuple[str | None, str | None]:
    """(text, sha256 of the bytes) of a context file; (None, digest or None) when it cannot
    be read, is too large or does not decode."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_CONTEXT_BYTES + 1)
    except OSError:
        return None, None
    digest = hashlib.sha256(raw).hexdigest()
    if len(raw) > MAX_CONTEXT_BYTES:
        return None, digest
    try:
        return importlib.util.decode_source(raw), digest
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return None, digest


def still_valid(root: str | None, lookups: list[Lookup]) -> bool:
    """Whether each of ``lookups`` (``OutsideModules.lookups`` of an earlier run of the
    project at ``root``) finds the same file with the same bytes now. (A package the project
    came to hold since changed the project's own files, which a cache keys on already.)"""
    modules = OutsideModules(root, lambda top: False, lambda path, text, module: None)
    for module, path, digest in lookups:
        now = modules.locate(module)
        if now != path:
            return False
        if path is not None and _read(path)[1] != digest:
            return False
    return True
