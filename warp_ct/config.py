"""Configuration: ``[tool.warp-ct]`` in the nearest pyproject.toml, overridden by CLI or editor.

Keys (kebab-case in TOML, also accepted in snake_case):
``select``, ``extend-select``, ``ignore``, ``per-file-ignores``, ``severity``, ``exclude``,
``extend-exclude``, ``target-warp-version``, ``fail-level``.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, TypeVar

from warp_ct.fs import real_path

_T = TypeVar("_T")

if TYPE_CHECKING:  # importing the analyzer package here would be circular (engine imports config)
    from warp_ct.analyzer.model import Severity

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DEFAULT_EXCLUDE = (
    ".bzr", ".direnv", ".eggs", ".git", ".hg", ".mypy_cache", ".nox", ".pants.d", ".pytest_cache",
    ".ruff_cache", ".svn", ".tox", ".venv", ".warp_ct_cache", "__pypackages__", "_build", "buck-out",
    "build", "dist", "node_modules", "site-packages", "venv",
)  # fmt: skip

_CODE_PREFIX_RE = re.compile(r"^(ALL|WCT\d{0,3})$")
_VERSION_RE = re.compile(r"^\d+(\.\d+){0,2}$")
# The lowest severity that fails a lint run (exit 1); info findings are hints by default.
FAIL_LEVELS = ("info", "warning", "error")
DEFAULT_FAIL_LEVEL = "warning"


class ConfigError(Exception):
    """A bad setting: the message names the file and the key."""


def parse_version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ("WCT",)
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    severity: tuple[tuple[str, Severity], ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    target_warp_version: tuple[int, ...] | None = None
    fail_level: str = DEFAULT_FAIL_LEVEL  # one of FAIL_LEVELS; changes the exit code, not findings
    root: Path = field(default_factory=Path.cwd)  # the directory of the pyproject (or cwd)
    source: Path | None = None  # the pyproject.toml it came from
    # What the user should hear about the configuration without it being an error (a
    # misspelt table); the CLI prints each as one line. Not part of what findings depend on.
    warnings: tuple[str, ...] = field(default=(), compare=False)

    # ------------------------------------------------------------------ selection
    def is_enabled(self, code: str, path: str | None = None) -> bool:
        select = self._best_match(code, self.select + self.extend_select)
        ignores = self.ignore + (self.ignored_for(path) if path else ())
        ignore = self._best_match(code, ignores)
        if select < 0:
            return False
        return ignore < 0 or select > ignore

    def ignored_for(self, path: str) -> tuple[str, ...]:
        if not self.per_file_ignores:
            return ()  # the common case; resolving the path costs syscalls per file and code
        rel = self._relative(path)
        codes: list[str] = []
        for pattern, pattern_codes in self.per_file_ignores:
            if _matches(rel, pattern):
                codes.extend(pattern_codes)
        return tuple(codes)

    @staticmethod
    def _best_match(code: str, prefixes: tuple[str, ...]) -> int:
        """Length of the longest prefix matching ``code`` (-1 if none). ALL matches at 0."""
        best = -1
        for prefix in prefixes:
            if prefix == "ALL":
                best = max(best, 0)
            elif code.startswith(prefix):
                best = max(best, len(prefix))
        return best

    def severity_for(self, code: str, default: Severity) -> Severity:
        for key, level in self.severity:
            if key == code:
                return level
        return default

    # ------------------------------------------------------------------ files
    def is_excluded(self, path: str | os.PathLike[str], within: str | os.PathLike[str] | None = None) -> bool:
        """Whether an exclude pattern matches ``path``. ``within``: the folder a walk started at,
        which the user named: names of folders at and above it (``site-packages`` of
        ``lint <site-packages>/warp``) exclude nothing below it, as a path named explicitly is
        always linted; patterns with a ``/`` still match the path from the config root."""
        names, globs = self._exclude_patterns()
        if not names and not globs:
            return False
        folder, name = os.path.split(os.fspath(path))
        rel_folder, folder_parts, folder_named = self._folder_for_excludes(folder)
        below = _below(os.fspath(path), os.fspath(within)) if within is not None else None
        if below is not None:
            parts = _parts(below)  # the named folder's own name and those above it excluded nothing
            named = not names.isdisjoint(parts)
        else:
            parts = (*folder_parts, name)
            named = folder_named or name in names
        if named:
            return True
        rel = name if rel_folder == "." else f"{rel_folder}/{name}"
        return any(_matches(rel, pattern) or any(fnmatch.fnmatchcase(part, pattern) for part in parts) for pattern in globs)

    def _folder_for_excludes(self, folder: str) -> tuple[str, tuple[str, ...], bool]:
        """(relative form, its parts, whether a part is an excluded name) of a folder, once per
        folder: discovery asks for every file, and resolving each file's links was a
        quarter of a warm lint. (A linked file is matched by the name it is found under.)"""
        known: dict = self._derived("_exclude_folders", dict)
        if len(known) > 10_000:
            known.clear()
        key = folder if os.path.isabs(folder) else (os.getcwd(), folder)
        entry = known.get(key)
        if entry is None:
            rel_folder = self._relative(folder or ".")
            parts = _parts(rel_folder)
            names = self._exclude_patterns()[0]
            entry = known[key] = (rel_folder, parts, not names.isdisjoint(parts))
        return entry

    def _exclude_patterns(self) -> tuple[frozenset[str], tuple[str, ...]]:
        """The exclude patterns split, once per config, into plain names (``build``,
        ``.venv``: no glob character, no ``/``), which match a path holding a part of that
        name, and the rest, which ``_matches`` reads. Discovery asks for every file and
        folder: ``fnmatch`` per default pattern and part was a second per 2,500 files."""
        return self._derived("_exclude_split", self._split_excludes)

    def _split_excludes(self) -> tuple[frozenset[str], tuple[str, ...]]:
        names: set[str] = set()
        globs: list[str] = []
        for pattern in self.exclude + self.extend_exclude:
            if pattern and not any(c in pattern for c in "*?[]/"):
                names.add(pattern)
            else:
                globs.append(pattern)
        return frozenset(names), tuple(globs)

    def _relative(self, path: str) -> str:
        """``path`` relative to the config root (globs in the config are written that way)."""
        absolute = os.path.abspath(path)
        roots = self._roots()
        for candidate in (absolute, None):
            if candidate is None:  # resolving links costs a system call per folder: only when needed
                candidate = real_path(absolute)
            for root in roots:
                rel = _relative_to(candidate, root)
                if rel is not None:
                    return rel
        return Path(path).as_posix()

    def _roots(self) -> tuple[str, str]:
        """The config root as written (absolute) and with its links resolved, once per config."""
        return self._derived("_root_forms", lambda: (os.path.abspath(self.root), os.path.realpath(self.root)))

    def _derived(self, name: str, compute: Callable[[], _T]) -> _T:
        """What ``compute`` derives from this config, computed once and kept on the instance
        (the config is frozen, so what it derives never goes stale; ``replace`` makes a new
        instance without it)."""
        try:
            return self.__dict__[name]
        except KeyError:
            value = compute()
            object.__setattr__(self, name, value)
            return value

    def with_cli_selection(
        self,
        known_codes: Iterable[str],
        *,
        select: tuple[str, ...] | None = None,
        extend_select: tuple[str, ...] | None = None,
        ignore: tuple[str, ...] | None = None,
    ) -> "Config":
        """Apply command-line rule selection on top of this configuration, the way ruff
        layers it: ``select`` replaces the configured selection (configured ``select``,
        ``extend-select`` and ``ignore`` alike), ``extend_select`` enables more rules and
        ``ignore`` disables rules. Within one layer the more specific selector wins and an
        ``ignore`` wins a tie. ``per-file-ignores`` still apply afterwards.

        The result selects the enabled codes among ``known_codes`` explicitly.
        """
        if select is None and extend_select is None and ignore is None:
            return self
        enabled: set[str] = set()
        for code in known_codes:
            on = self.is_enabled(code)
            chosen = self._best_match(code, (select or ()) + (extend_select or ()))
            ignored = self._best_match(code, ignore or ())
            if select is not None:
                on = chosen >= 0 and chosen > ignored
            elif chosen >= 0 and chosen > ignored:
                on = True
            elif ignored >= 0:
                on = False
            if on:
                enabled.add(code)
        return replace(self, select=tuple(sorted(enabled)), extend_select=(), ignore=())

    def with_overrides(self, **changes: Any) -> "Config":
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    def fingerprint(self) -> str:
        """A stable text of everything that changes findings, for result caches."""
        return repr((self.select, self.extend_select, self.ignore, self.per_file_ignores, self.severity,
                     self.target_warp_version))  # fmt: skip


def _relative_to(path: str, root: str) -> str | None:
    """``Path(path).relative_to(root).as_posix()`` for two normalised absolute paths (None:
    not below it), by their text where paths compare as text (POSIX)."""
    if os.sep != "/" or os.altsep:
        try:
            return Path(path).relative_to(root).as_posix()
        except ValueError:
            return None
    if path == root:
        return "."
    prefix = root if root.endswith("/") else root + "/"
    return path[len(prefix):] if path.startswith(prefix) else None


def _below(path: str, folder: str) -> str | None:
    """``path`` relative to ``folder`` as POSIX text, for a path a walk of ``folder`` gave
    (``os.path.join(dirpath, name)``); None when it is not below it."""
    if folder in ("", os.curdir):
        return Path(path).as_posix()
    prefix = folder if folder.endswith(os.sep) else folder + os.sep
    return Path(path[len(prefix):]).as_posix() if path.startswith(prefix) else None


def _parts(posix_path: str) -> tuple[str, ...]:
    """``Path(posix_path).parts`` by splitting the text where paths are POSIX (discovery asks
    for every file and folder: a ``Path`` each was a quarter of a warm lint)."""
    if os.sep != "/" or os.altsep:
        return Path(posix_path).parts
    parts = tuple(part for part in posix_path.split("/") if part and part != ".")
    return ("/", *parts) if posix_path.startswith("/") else parts


def _matches(rel_path: str, pattern: str) -> bool:
    pattern = pattern.rstrip("/")
    return fnmatch.fnmatchcase(rel_path, pattern) or fnmatch.fnmatchcase(rel_path, pattern + "/*") or (
        "/" not in pattern and fnmatch.fnmatchcase(Path(rel_path).name, pattern)
    )


# ---------------------------------------------------------------------- loading
# ``[tool.warp-ct]`` or a sub-table (``[tool.warp-ct.severity]``); a project named warp-ct
# (this one) does not configure the files under it.
_TOOL_TABLE_RE = re.compile(r"^\s*\[\s*tool\s*\.\s*[\"']?warp-ct[\"']?\s*[\].]", re.MULTILINE)
# ``[tool.warp_ct]``: the package's import name, not the tool's; TOML keeps it a separate
# table, which would otherwise be ignored without a word.
_MISSPELT_TABLE = "warp_ct"
_MISSPELT_TABLE_RE = re.compile(r"^\s*\[\s*tool\s*\.\s*[\"']?warp_ct[\"']?\s*[\].]", re.MULTILINE)


def misspelt_table_warning(path: Path) -> str:
    return f"{path}: [tool.{_MISSPELT_TABLE}] is ignored: did you mean [tool.warp-ct]?"


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above ``start`` that has a [tool.warp-ct] table,
    else the nearest pyproject.toml at all (for the target Warp version). Folders that cannot
    be searched are passed over (``os.path`` answers False where ``Path`` would raise)."""
    return _find_pyproject(start)[0]


def _find_pyproject(start: Path) -> tuple[Path | None, list[Path]]:
    """``find_pyproject``'s answer, and the pyproject.toml files on the way to it (it
    included) that have a misspelt ``[tool.warp_ct]`` table."""
    start = start.resolve()
    if os.path.isfile(start):
        start = start.parent
    nearest = None
    misspelt: list[Path] = []
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if os.path.isfile(candidate):
            if nearest is None:
                nearest = candidate
            try:
                text = candidate.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if _MISSPELT_TABLE_RE.search(text):
                misspelt.append(candidate)
            if _TOOL_TABLE_RE.search(text):
                return candidate, misspelt
    return nearest, misspelt


def load_config(start: Path | None = None, pyproject: Path | None = None) -> Config:
    """Read configuration for files under ``start`` (default: cwd). Raises ConfigError."""
    start = start or Path.cwd()
    misspelt: list[Path] = []
    if pyproject is not None:
        path: Path | None = pyproject
    else:
        path, misspelt = _find_pyproject(start)
    warnings = tuple(misspelt_table_warning(found) for found in misspelt if found != path)
    if path is None:
        root = start.resolve() if os.path.isdir(start) else start.resolve().parent
        return Config(root=root, target_warp_version=_installed_warp_version(), warnings=warnings)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    tool = data.get("tool", {})
    table = tool.get("warp-ct", {}) if isinstance(tool, dict) else {}
    if isinstance(tool, dict) and _MISSPELT_TABLE in tool:
        warnings += (misspelt_table_warning(path),)
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.warp-ct] must be a table")
    config = config_from_mapping(table, origin=str(path), root=path.parent)
    if config.target_warp_version is None:
        declared = _declared_warp_version(data, path.parent)
        config = replace(config, target_warp_version=declared or _installed_warp_version())
    return replace(config, source=path, warnings=warnings)


_KNOWN_KEYS = {
    "select", "extend-select", "ignore", "per-file-ignores", "severity", "exclude", "extend-exclude",
    "target-warp-version", "fail-level",
}  # fmt: skip


def config_from_mapping(table: dict[str, Any], *, origin: str, root: Path, base: Config | None = None) -> Config:
    """Validate a settings mapping (TOML table or editor settings). Raises ConfigError."""
    from warp_ct.analyzer.model import Severity

    config = base or Config(root=root)
    changes: dict[str, Any] = {}
    for raw_key, value in table.items():
        key = raw_key.replace("_", "-")
        if key not in _KNOWN_KEYS:
            raise ConfigError(f"{origin}: unknown key {raw_key!r} in [tool.warp-ct] (known: {', '.join(sorted(_KNOWN_KEYS))})")
        where = f"{origin}: key {raw_key!r}"
        if key in ("select", "extend-select", "ignore"):
            codes = _selectors(value, where)
            if key == "select" and not codes:
                # Ruff accepts it, but a run that checks nothing and passes is what the key
                # cannot mean: turning rules off is what `ignore` is for.
                raise ConfigError(f"{where} is empty, so no rule would run (use `ignore` to turn rules off)")
            changes[key.replace("-", "_")] = codes
        elif key in ("exclude", "extend-exclude"):
            changes[key.replace("-", "_")] = _strings(value, where)
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise ConfigError(f"{where} must be a table of glob = [codes]")
            changes["per_file_ignores"] = tuple((str(glob), _selectors(codes, f"{where}[{glob!r}]")) for glob, codes in value.items())
        elif key == "severity":
            if not isinstance(value, dict):
                raise ConfigError(f"{where} must be a table of code = level")
            levels = []
            for code, level in value.items():
                if not re.fullmatch(r"WCT\d{3}", str(code)):
                    raise ConfigError(f"{where}: {code!r} is not a rule code like WCT003")
                if code not in _known_codes():
                    raise ConfigError(f"{where}: {code!r} is not a rule; `warp-ct rules` lists them")
                if not isinstance(level, str):
                    raise ConfigError(f"{where}[{code!r}] must be a severity name: hint, info, warning or error (got {level!r})")
                try:
                    levels.append((str(code), Severity.parse(level)))
                except ValueError as exc:
                    raise ConfigError(f"{where}[{code!r}]: {exc}") from None
            changes["severity"] = tuple(levels)
        elif key == "target-warp-version":
            if value in (None, ""):
                continue
            if not isinstance(value, str) or not _VERSION_RE.match(value):
                raise ConfigError(f"{where} must be a version string like \"1.16\" (got {value!r})")
            changes["target_warp_version"] = parse_version(value)
        elif key == "fail-level":
            changes["fail_level"] = parse_fail_level(value, where)
    return replace(config, **changes)


def parse_fail_level(value: Any, where: str) -> str:
    """``info``, ``warning`` or ``error`` (any case). Raises ConfigError."""
    level = value.strip().lower() if isinstance(value, str) else None
    if level not in FAIL_LEVELS:
        expected = ", ".join(f'"{name}"' for name in FAIL_LEVELS)
        raise ConfigError(f"{where} must be one of {expected} (got {value!r})")
    return level


def parse_selectors(value: str, where: str) -> tuple[str, ...]:
    """Comma-separated rule codes or prefixes from the command line. Raises ConfigError."""
    if not value.strip():
        raise ConfigError(f"{where}: no rule code given (expected codes or prefixes like WCT003, WCT0 or ALL)")
    items = tuple(v.strip().upper() for v in value.split(","))
    if "" in items:  # like ruff: `--select WCT003,` is a typo, not a request for fewer rules
        raise ConfigError(f"{where}: {value!r} has an empty item between commas")
    for item in items:
        _check_selector(item, where)
    return items


def _selectors(value: Any, where: str) -> tuple[str, ...]:
    """A TOML list of rule codes or prefixes, each of which selects at least one rule."""
    items = _strings(value, where)
    for item in items:
        _check_selector(item, where)
    return items


def _check_selector(item: str, where: str) -> None:
    if not _CODE_PREFIX_RE.match(item):
        raise ConfigError(f"{where}: {item!r} is not a rule code or prefix (like WCT003, WCT0 or ALL)")
    if item != "ALL" and not any(code.startswith(item) for code in _known_codes()):
        raise ConfigError(f"{where}: {item!r} matches no rule; `warp-ct rules` lists them")


def _known_codes() -> tuple[str, ...]:
    # Imported when needed: the rule registry is in the analyzer package, whose __init__ imports
    # this module.
    from warp_ct.output.rules import known_codes

    return known_codes()


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):  # like ruff: a bare string is a mistake, not a one-item list
        raise ConfigError(f"{where} must be a list of strings: write [{json.dumps(value)}], not {json.dumps(value)}")
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where} must be a list of strings (got {value!r})")
    return tuple(v.strip() for v in value)


# ---------------------------------------------------------------------- target Warp version
_WARP_REQ_RE = re.compile(r"warp-lang\s*(?:\[[^\]]*\])?\s*(?P<spec>[^;\"'\n]*)", re.IGNORECASE)
_LOWER_BOUND_RE = re.compile(r"(?:>=|==|~=|>)\s*(?P<v>\d+(?:\.\d+){0,2})")


def _lower_bound(spec_text: str) -> tuple[int, ...] | None:
    for match in _WARP_REQ_RE.finditer(spec_text):
        bound = _LOWER_BOUND_RE.search(match.group("spec"))
        if bound:
            return parse_version(bound.group("v"))
    return None


def _declared_warp_version(pyproject: dict[str, Any], root: Path) -> tuple[int, ...] | None:
    """The oldest Warp the project says it supports (``warp-lang>=X`` in its dependencies)."""
    project = pyproject.get("project", {})
    deps = list(project.get("dependencies", []) or [])
    for extra in (project.get("optional-dependencies", {}) or {}).values():
        deps.extend(extra or [])
    found = _lower_bound("\n".join(str(d) for d in deps))
    if found:
        return found
    for req in sorted(root.glob("requirements*.txt")):
        try:
            found = _lower_bound(req.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
        if found:
            return found
    return None


def _installed_warp_version() -> tuple[int, ...] | None:
    """The installed warp-lang's version from its metadata (never imports warp)."""
    from importlib import metadata

    try:
        text = metadata.version("warp-lang")
    except metadata.PackageNotFoundError:
        return None
    match = re.match(r"\d+(\.\d+){0,2}", text)
    return parse_version(match.group(0)) if match else None
