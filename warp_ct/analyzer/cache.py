"""Content-hash result cache for ``warp-ct lint``.

One JSON entry per project and analysis under ``<cache_dir>/v1/<k[:2]>/<k>.json``, where
``k`` is a sha256 over:

* the *run key*: warp-ct's version, the cache format, Python and astroid versions, the
  effective configuration (``Config.fingerprint()`` plus the config root, which
  ``per-file-ignores`` are relative to), the selected rule codes and a hash of the
  analyzer's own source files (editing a rule or the engine invalidates everything);
* the *project digest*: a hash of every project file's path, module name and content. The
  program model joins all files (calls, defaults, option changes and launches of other
  files), so a finding can change when any other file changes.

Inside the entry, each file's result is kept under its path and the digest of its bytes
(content, not mtime: a checkout or ``touch`` keeps hits), and beside them what the model
read from outside the project for them (``outside``: each module looked up, the file found
and the digest of its bytes, or nothing found). An entry whose lookups find another file or
other bytes now is all misses: a library project beside the linted one, or an installed
package, changed.

Trade-off of the project digest: it is one digest per project, so any edit invalidates
every entry of the project, and a re-run on an unchanged tree is all hits (the common CI
and pre-commit case), found without summarising a file. A per-file dependency closure from
the model would keep more hits; the coarse digest cannot be wrong.

Concurrency: entries are written to a temporary file and moved into place with
``os.replace`` (atomic on POSIX and Windows), so two runs sharing the directory see either
no entry or a whole one. An entry that cannot be read or decoded is all misses and is
rewritten. Results that depend on timing (a time budget ran out) or on a crash are never
stored. The directory holds a ``.gitignore`` (``*``) and a ``CACHEDIR.TAG`` so that git and
backup tools skip it.

Trust: the folder usually sits inside the linted tree, which may be a cloned repository, so
nothing in it is trusted. Every entry is signed with the user's own key (``cache_signing``)
and one that does not verify is a miss; results are JSON, and facts are unpickled by an
unpickler that can build only warp-ct's own fact classes. Entries are written only into
folders that resolve inside the cache folder.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import itertools
import json
import os
import pickle
import platform
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable

from warp_ct.analyzer.cache_signing import KeyUnavailable, read_entry, sign, user_key, verified_payload
from warp_ct.analyzer.model import FileResult, Finding

FORMAT = "v1"
CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by warp-ct.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)
# Notes that mean "this result depends on how fast the machine was": never cached.
_VOLATILE_NOTE_MARKERS = ("budget", "time limit")
_RULE_ERROR = "WCT901"


def _canonical(value: Any) -> Any:
    """A JSON-able, order-stable form of a summary fact (sets sorted, dataclasses expanded)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict):
        return sorted(([_canonical(k), _canonical(v)] for k, v in value.items()), key=repr)
    if isinstance(value, (set, frozenset)):
        return sorted((_canonical(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [type(value).__name__, _canonical({f.name: getattr(value, f.name) for f in dataclasses.fields(value)})]
    if hasattr(value, "pattern"):  # compiled regex
        return repr(value.pattern)
    state = _public_state(value)
    if state is not None:
        # A plain object (e.g. lazily computed facts): its public attributes, long strings
        # (the file text a lazy summary keeps) by their hash. Private attributes are caches.
        return [type(value).__name__, _canonical(state)]
    return repr(value)


def _public_state(value: Any) -> dict[str, Any] | None:
    names: list[str] = []
    for klass in type(value).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        names.extend([slots] if isinstance(slots, str) else slots)
    names.extend(getattr(value, "__dict__", {}) or {})
    if not names:
        return None
    state = {}
    for name in dict.fromkeys(names):
        if name.startswith("_") or not hasattr(value, name):
            continue
        attr = getattr(value, name)
        if isinstance(attr, str) and len(attr) > 256:
            attr = "sha256:" + hashlib.sha256(attr.encode("utf-8", "surrogatepass")).hexdigest()
        state[name] = attr
    return state


def project_digest(files: Iterable[tuple[str, str, str]]) -> str:
    """One digest of every file of the project: (path, module name, content digest) each
    (see the module docstring).

    The program model reads other files' function bodies (a helper's option change, a
    factory's default, a caller's loop), so the digest covers each file's whole content:
    any edit invalidates every entry, and an unchanged tree is all hits. Taken from the
    digests of the bytes read, so a warm run never summarises a file."""
    h = hashlib.sha256()
    for path, module_name, digest in sorted(files):
        h.update(path.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
        h.update(module_name.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
        h.update(digest.encode("ascii"))
    return h.hexdigest()


_SOURCE_HASH: str | None = None


def analyzer_source_hash() -> str:
    """A hash of the analyzer's own code (rules, engine, stub) and the config module."""
    global _SOURCE_HASH
    if _SOURCE_HASH is None:
        h = hashlib.sha256()
        base = Path(__file__).resolve().parent
        files = sorted(base.rglob("*.py")) + [base.parent / "config.py"]
        for path in files:
            try:
                data = path.read_bytes()
            except OSError:
                data = b"?"
            h.update(str(path.relative_to(base.parent)).encode())
            h.update(b"\0")
            h.update(data)
        _SOURCE_HASH = h.hexdigest()
    return _SOURCE_HASH


def run_key(config: Any, rule_codes: Iterable[str]) -> str:
    """Everything besides the file and the project that decides a result."""
    import astroid

    from warp_ct import __version__

    parts = [
        "warp-ct", __version__, FORMAT,
        platform.python_implementation(), ".".join(map(str, sys.version_info[:2])),
        "astroid", getattr(astroid, "__version__", "?"),
        config.fingerprint(), str(getattr(config, "root", "")),
        ",".join(sorted(rule_codes)),
        analyzer_source_hash(),
    ]  # fmt: skip
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()


def is_cacheable(result: FileResult) -> bool:
    if any(f.rule == _RULE_ERROR for f in result.findings):
        return False
    return not any(marker in note for note in result.notes for marker in _VOLATILE_NOTE_MARKERS)


class _CacheFolder:
    """What both caches share: the folder, the user's signing key, counters, and reads and
    writes that degrade to "not cached", never to an error. ``problem`` says, in one
    sentence, why the cache was turned off (no key, a read-only or full disk)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.root = Path(directory)
        self.hits = 0
        self.misses = 0
        self.writes = 0
        self.enabled = True
        self.problem: str | None = None
        self._made: set[str] = set()
        try:
            self._key = user_key()
        except KeyUnavailable as exc:
            self._key = b""
            self._turn_off(str(exc))

    def _turn_off(self, problem: str) -> None:
        self.enabled = False
        self.problem = self.problem or problem

    def _read_signed(self, path: str) -> bytes | None:
        """The payload of the entry at ``path`` if this user's warp-ct wrote it, else None."""
        data = read_entry(path)
        return None if data is None else verified_payload(self._key, data)

    def _write(self, target: str, payload: bytes) -> None:
        try:
            self._ensure_dir(os.path.dirname(target))
            _write_atomically(target, sign(self._key, payload))
        except OSError as exc:  # read-only or full disk, a folder linked elsewhere: lint on without the cache
            self._turn_off(f"cannot write the cache in {self.root}: {exc.strerror or exc}")
            return
        self.writes += 1

    def _ensure_dir(self, directory: str) -> None:
        if directory in self._made:
            return
        if not self._made:
            ensure_cache_root(self.root)
        # Folder by folder, none of them a link: a committed ``v1 -> ~/somewhere`` would
        # have entries written outside the cache folder.
        current = str(self.root)
        for part in os.path.relpath(directory, self.root).split(os.sep):
            current = os.path.join(current, part)
            try:
                os.mkdir(current)
            except FileExistsError:
                if os.path.islink(current) or not os.path.isdir(current):
                    raise OSError(f"{current} leads outside the cache folder") from None
        self._made.add(directory)


# The entry's key for what the model read from outside the project (no path starts with NUL).
CONTEXT_KEY = "\0context"


def _lookups(data: Any) -> set[tuple]:
    """Stored lookups outside the project as (module, path or None, digest or None) tuples;
    ValueError for anything else (an entry from an older or foreign warp-ct)."""
    if not isinstance(data, list):
        raise ValueError("not a list of lookups")
    out = set()
    for item in data:
        if not (isinstance(item, (list, tuple)) and len(item) == 3 and isinstance(item[0], str)
                and all(part is None or isinstance(part, str) for part in item[1:])):  # fmt: skip
            raise ValueError("not a lookup")
        out.add(tuple(item))
    return out


class ResultCache(_CacheFolder):
    """The results of one project's files, in one entry per (run key, project digest).

    One entry per project, not per file: writing 2,500 small files was a tenth of a cold
    lint of Isaac Lab (0.7-1.6 s, file creation on a busy disk), and reading them back most
    of a warm one. Files linted later against the same digest (``lint a.py``, then ``lint
    b.py``) are added to the entry. Inside it, each result is kept under its path and the
    digest of the bytes it is about."""

    def __init__(self, directory: str | os.PathLike[str], run_key: str, project_digest: str,
                 context_valid: Callable[[list], bool] | None = None) -> None:  # fmt: skip
        """``context_valid``: whether the files read from outside the project for the stored
        results (``outside.OutsideModules.lookups``) are still what each lookup finds; an
        entry whose context changed is all misses."""
        super().__init__(directory)
        name = hashlib.sha256(f"{run_key}\n{project_digest}\n".encode()).hexdigest()
        self._entry = os.path.join(self.root, FORMAT, name[:2], f"{name}.json")
        self._stored: dict[str, Any] | None = None  # read on the first ``get``
        self._new: dict[str, Any] = {}
        self._context_valid = context_valid
        self._context: set[tuple] = set()  # the stored results' lookups outside the project
        self._new_context: set[tuple] = set()

    def key(self, path: str, content: str) -> str:
        """The key of ``path`` with ``content`` (the digest of the bytes read) in the entry."""
        return f"{path}\0{content}"

    def get(self, key: str, path: str) -> FileResult | None:
        if not self.enabled:
            return None
        data = self._read().get(key)
        try:
            if data is None:
                raise KeyError(key)
            if data.get("path") != path:
                raise ValueError("entry for another path")
            result = FileResult(
                path,
                findings=[Finding.from_dict(f) for f in data["findings"]],
                notes=[str(n) for n in data.get("notes", [])],
                unchecked=data.get("unchecked"),
            )
        except Exception:  # noqa: BLE001 - missing, or corrupt/foreign: a miss, rewritten on ``flush``
            self.misses += 1
            return None
        self.hits += 1
        return result

    def _read(self) -> dict[str, Any]:
        if self._stored is None:
            try:
                payload = self._read_signed(self._entry)
                if payload is None:
                    raise ValueError("missing, or not this user's")
                stored = json.loads(payload)
                if not isinstance(stored, dict):
                    raise ValueError("not an entry")
                self._context = _lookups(stored.pop(CONTEXT_KEY, []))
                if self._context and (self._context_valid is None or not self._context_valid(sorted(self._context, key=repr))):
                    raise ValueError("a file read from outside the project changed")
            except Exception:  # noqa: BLE001 - missing, partial or corrupt: every result misses
                stored = {}
                self._context = set()
            self._stored = stored
        return self._stored

    def add_context(self, lookups: Iterable[Any]) -> None:
        """What the model read from outside the project for the results ``put`` (kept with
        them by ``flush``)."""
        self._new_context |= _lookups(list(lookups))

    def put(self, key: str, result: FileResult) -> None:
        """Keep ``result`` for ``flush``."""
        if self.enabled and is_cacheable(result):
            self._new[key] = {"path": result.path, "findings": [f.to_dict() for f in result.findings],
                              "notes": list(result.notes), "unchecked": result.unchecked}  # fmt: skip

    def flush(self) -> None:
        """Write the entry with the results ``put`` since it was read (two runs sharing the
        folder: the last to write wins, and what it lacks is linted again)."""
        if not self._new or not self.enabled:
            return
        entry: dict[str, Any] = {**self._read(), **self._new}
        context = self._context | self._new_context
        if context:
            entry[CONTEXT_KEY] = [list(lookup) for lookup in sorted(context, key=repr)]
        self._new = {}
        self._write(self._entry, json.dumps(entry, separators=(",", ":")).encode("utf-8"))


class FactsCache(_CacheFolder):
    """One file's facts by content (``<cache_dir>/v1/facts/``): a file's facts depend on its
    text, name and parse mode only, so they outlive edits of every other file. The project
    digest of the result cache makes any edit a miss for every result; with the facts kept,
    such a run (a pre-commit hook's, or a file linted alone: the whole project is read for
    the model) extracts only what changed. Pickled (the fastest form of these object graphs),
    signed with the user's key, and read back by an unpickler that builds only the fact
    classes: see ``_FactsUnpickler``."""

    def __init__(self, directory: str | os.PathLike[str], store: set[str] | None = None) -> None:
        super().__init__(directory)
        self.dir = os.path.join(self.root, FORMAT, "facts")
        self._prefix = f"{analyzer_source_hash()}\n{'.'.join(map(str, sys.version_info[:2]))}\n".encode()
        self._store = store  # the paths whose facts are written (None: every file's)

    def facts_key(self, path: str, module: str, is_package: bool, skeleton: bool, text: str) -> str:
        h = hashlib.sha256(self._prefix)
        h.update(f"{path}\0{module}\0{is_package:d}{skeleton:d}".encode("utf-8", "surrogatepass"))
        h.update(b"\0")
        h.update(text.encode("utf-8", "surrogatepass"))
        return h.hexdigest()

    def _entry(self, key: str) -> str:
        # Joined as text: a Path per lookup was a tenth of a warm lint's cache reads.
        return os.path.join(self.dir, key[:2], f"{key}.pickle")

    def get_facts(self, key: str) -> Any:
        if not self.enabled:
            return None
        try:
            payload = self._read_signed(self._entry(key))
            if payload is None:
                raise ValueError("missing, or not this user's")
            facts = _FactsUnpickler(io.BytesIO(payload)).load()
        except Exception:  # noqa: BLE001 - missing, partial or foreign: extracted again
            self.misses += 1
            return None
        self.hits += 1
        return facts

    def stores(self, path: str) -> bool:
        """Whether the facts of ``path`` are written (asked before their key is computed)."""
        return self.enabled and (self._store is None or path in self._store)

    def put_facts(self, key: str, facts: Any) -> None:
        if not self.stores(getattr(facts, "path", None)):
            return
        try:
            payload = pickle.dumps(facts, protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, RecursionError):
            self.enabled = False  # facts too deep to pickle: not a problem of the user's
            return
        self._write(self._entry(key), payload)


class _FactsUnpickler(pickle.Unpickler):
    """Builds only warp-ct's fact classes: a signed entry can only come from this user's
    warp-ct, and even a forged one could construct nothing else (no ``os.system``, no
    attribute paths such as ``Fact.__init__.__globals__``)."""

    _MODULES = ("warp_ct.analyzer.facts", "warp_ct.analyzer.exports")
    # Constants of the source (``x[...]``, ``2j``) and plain containers: data, nothing more.
    _BUILTINS = frozenset({"Ellipsis", "NotImplemented", "complex", "frozenset", "set", "slice", "range", "bytearray"})

    def find_class(self, module: str, name: str) -> Any:
        if module == "builtins" and name in self._BUILTINS:
            return super().find_class(module, name)
        if module in self._MODULES and name.isidentifier():
            found = getattr(sys.modules.get(module), name, None)
            if isinstance(found, type) and found.__module__ == module:
                return found
            if name == "_EMPTY_TABLE" and found is not None:  # the shared empty table (``facts.__reduce__``)
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not a warp-ct fact")


_temp_names = itertools.count()


def _write_atomically(target: str, payload: bytes) -> None:
    """Two runs sharing the directory see no entry or a whole one."""
    # A name of this process's own (``mkstemp``'s random names cost half a millisecond
    # each: 0.6 s of a cold lint that writes 2,500 entries); O_EXCL still guards it.
    folder, suffix = os.path.dirname(target), os.path.splitext(target)[1]
    tmp = os.path.join(folder, f".tmp-{os.getpid()}-{next(_temp_names)}{suffix}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    except FileExistsError:  # left by a process of the same id that died: take a random name
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=suffix, dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def ensure_cache_root(root: Path) -> None:
    """Create the cache directory with a ``.gitignore`` and ``CACHEDIR.TAG`` (idempotent)."""
    root.mkdir(parents=True, exist_ok=True)
    for name, text in ((".gitignore", "# Created by warp-ct: this directory is a cache.\n*\n"), ("CACHEDIR.TAG", CACHEDIR_TAG)):
        target = root / name
        if target.exists():
            continue
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=root)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, target)
