"""The project-wide view: every linted file's module name and a cheap text summary.

Rules that depend on other files (import order for WCT001, which module a kernel lives in
for WCT010, where options are set for WCT013/WCT014) read these summaries instead of
parsing other files. Summaries come from regular expressions over the text: they cost
microseconds per file, so the whole project is summarised before any astroid tree exists.
"""

from __future__ import annotations

import ast
import functools
import os
import re
import sys
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import astroid
from astroid import MANAGER
from astroid.exceptions import AstroidBuildingError

from warp_ct.analyzer import textscan, warp_stub
from warp_ct.analyzer.exports import UNKNOWN as EXPORT_UNKNOWN
from warp_ct.analyzer.exports import Export, resolve_export
from warp_ct.analyzer.facts import FileFacts, extract, parse_for_facts, parse_source
from warp_ct.analyzer.outside import OutsideModules
from warp_ct.analyzer.program import Program, path_in_project
from warp_ct.analyzer.syntax import (
    absolute_module, attach_parents, gc_paused, parse_text, set_module_of, without_type_params,
)
from warp_ct.fs import folders_fixed, real_path

_IMPORT_RE = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<from>\.*[\w.]*)[ \t]+import[ \t]+(?P<names>\([^)]*\)|[^#\n]+)"
    r"|import[ \t]+(?P<mods>[^#\n]+))",
    re.MULTILINE,
)
_KERNEL_DEF_RE = re.compile(
    r"^[ \t]*@[ \t]*(?:[\w.]+\.)?kernel\b[^\n]*\n(?:[ \t]*@[^\n]*\n)*[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)",
    re.MULTILINE,
)
_STAR_IMPORT_RE = re.compile(r"\bimport[ \t]*\*")  # ``from m import *``
# ``name = wp.config`` (or ``... = warp.config``) at the end of a line: a config alias.
_CONFIG_ALIAS_RE = re.compile(r"=[ \t]*(?:\w+[ \t]*\.[ \t]*)*config[ \t]*(?:#[^\n]*)?$", re.MULTILINE)
_WARP_IMPORT_RE = re.compile(r"^[ \t]*(?:import[ \t]+warp\b|from[ \t]+warp\b)", re.MULTILINE)
# (literal every match starts with, pattern): tried only where the literal occurs (textscan).
_DIFFERENTIATES = tuple(
    (literal, re.compile(pattern))
    for literal, pattern in (
        ("Tape", r"\bTape\s*\("),
        ("adjoint", r"\badjoint\s*=\s*True"),
        ("requires_grad", r"\brequires_grad\s*=\s*True"),
        (".backward", r"\.backward\s*\("),
        ("adj_inputs", r"\badj_inputs\s*="),
    )
)


# astroid's brain transforms (namedtuple, dataclasses, enum, six, Qt, ...) visit every node of
# every tree with ~100 predicates: about a third of astroid.parse. Inference here answers
# Warp API questions, not what those transforms model, so project trees are built without
# them (modules inference imports from disk keep them). A/B over the warp-lang and
# mujoco-warp corpora: identical findings.
BRAIN_TRANSFORMS = False


def build_astroid(text: str, module_name: str, path: str):
    """The astroid tree of one project file, built the same way for every use."""
    try:
        return astroid.parse(text, module_name=module_name, path=path, apply_transforms=BRAIN_TRANSFORMS)
    except astroid.AstroidSyntaxError:
        older = without_type_params(text) if sys.version_info < (3, 12) else None
        if older is None:
            raise
        return astroid.parse(older, module_name=module_name, path=path, apply_transforms=BRAIN_TRANSFORMS)


def module_name_for(path: Path) -> str:
    """The dotted module name Python would give ``path``: walking up ``__init__.py`` dirs,
    and through a folder without one that sits inside a package (a namespace portion such
    as ``rewarped/warp/collide.py`` -> ``rewarped.warp.collide``)."""
    if _layout is not None:
        # The folder's part of the name, once per folder (a batch names every file).
        folder = path.parent
        prefix = _layout.prefixes.get(folder)
        if prefix is None:
            prefix = _layout.prefixes[folder] = ".".join(reversed(_package_parts(_resolved(path).parent)))
        stem = path.stem
        if stem == "__init__":
            return prefix or stem
        return f"{prefix}.{stem}" if prefix else stem
    path = _resolved(path)
    parts = [] if path.stem == "__init__" else [path.stem]
    parts += _package_parts(path.parent)
    return ".".join(reversed(parts)) or path.stem


def _package_parts(parent: Path) -> list[str]:
    """The names of ``parent`` and the folders above it that are part of a dotted name, innermost first."""
    parts = []
    while _package_part(parent):
        parts.append(parent.name)
        if parent.parent == parent:
            break
        parent = parent.parent
    return parts


_PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")


@dataclass
class _Layout:
    """What the disk says of folders, read once while a batch holds the file tree still."""

    package_parts: dict[Path, bool] = field(default_factory=dict)  # folder -> _package_part
    prefixes: dict[Path, str] = field(default_factory=dict)  # folder as named -> its files' module prefix


# None in an editor, where an ``__init__.py`` or a link may appear at any time.
_layout: _Layout | None = None


@contextmanager
def package_layout_fixed() -> Iterator[None]:
    """Within: each folder's place in the package layout is read from disk once (a batch
    names 1,500 files from a few hundred folders, each name walking up to the root)."""
    global _layout
    outer = _layout
    _layout = outer or _Layout()
    try:
        with folders_fixed():
            yield
    finally:
        _layout = outer


def _resolved(path: Path) -> Path:
    """``path.resolve()``, its folder resolved once within ``package_layout_fixed``."""
    return Path(real_path(str(path)))


def _package_part(directory: Path) -> bool:
    """A directory that is part of the dotted name: a package, or a folder without
    ``__init__.py`` inside one (a namespace portion), unless it is a project's own root (a
    pyproject/setup file: a project vendored or kept as a test fixture inside a package)."""
    if _layout is None:
        return _reads_as_package_part(directory)
    known = _layout.package_parts.get(directory)
    if known is None:
        known = _layout.package_parts[directory] = _reads_as_package_part(directory)
    return known


def _reads_as_package_part(directory: Path) -> bool:
    # os.path.isfile: a folder that cannot be searched is no package (Path.is_file raises)
    if os.path.isfile(directory / "__init__.py"):
        return True
    if directory.parent == directory or not os.path.isfile(directory.parent / "__init__.py"):
        return False
    return not any(os.path.isfile(directory / name) for name in _PROJECT_FILES)


def package_root_for(path: Path) -> Path:
    """The directory that must be on sys.path for ``module_name_for(path)`` to import."""
    parent = _resolved(path).parent
    while _package_part(parent) and parent.parent != parent:
        parent = parent.parent
    return parent


@dataclass(eq=False)  # one summary per text: compared by identity
class FileSummary:
    path: str
    module_name: str
    held_text: str | None  # the text; None while it is packed (``pack_text``)
    imports: tuple[str, ...]  # absolute dotted module names this file imports (from-imports expanded)
    imports_warp: bool
    kernel_names: tuple[str, ...]
    differentiates: bool  # Tape / adjoint=True / requires_grad=True / .backward( in this file
    mentions_warp: bool  # "warp" occurs in the text (the sound gate of every rule)
    size: int  # characters in the text
    extra: dict[str, Any] = field(default_factory=dict)  # per-rule summaries, keyed by code
    packed_text: bytes | None = None  # the text, compressed (``pack_text``)

    @property
    def defines_kernels(self) -> bool:
        return bool(self.kernel_names)

    @property
    def text(self) -> str:
        """The file's text (unpacked anew on each read while packed: ``hold_text`` keeps it)."""
        held = self.held_text
        if held is not None:
            return held
        assert self.packed_text is not None
        return zlib.decompress(self.packed_text).decode("utf-8", "surrogatepass")

    def pack_text(self) -> None:
        """Keep the text compressed only, until ``hold_text``.

        A batch lint keeps every file's summary to the end but works on one file at a time:
        the texts of a large project were its biggest single cost after the facts (70 MiB
        as ``str`` for a 51 MB corpus whose non-ASCII files take two bytes a character;
        12.5 MiB packed). Packing all of them costs about 1% of the lint, unpacking them
        all about half of that."""
        if self.packed_text is None:
            assert self.held_text is not None
            self.packed_text = zlib.compress(self.held_text.encode("utf-8", "surrogatepass"), 1)
        self.held_text = None

    def hold_text(self) -> str:
        """The text, kept unpacked until the next ``pack_text`` (the file being linted:
        its text is read by identity for the caches keyed on it)."""
        if self.held_text is None:
            self.held_text = self.text
        return self.held_text


def _is_package_path(path: str) -> bool:
    """``Path(path).stem == "__init__"``, without building a ``Path`` for the usual names."""
    name = os.path.basename(path)
    if name in ("__init__.py", "__init__.pyi"):
        return True
    return name.startswith("__init__") and Path(path).stem == "__init__"


def is_stub(path: str) -> bool:
    """A type stub (``.pyi``): it never runs, so it adds nothing to the Warp program."""
    return path.endswith(".pyi")


def summarize(path: str, text: str, module_name: str | None = None) -> FileSummary:
    module_name = module_name or module_name_for(Path(path))
    is_package = _is_package_path(path)
    imports: list[str] = []
    # Every match holds its keyword on its first line: only those lines are tried.
    for match in textscan.finditer_lines(_IMPORT_RE, "import", text):
        if match.group("from") is not None:
            dotted = match.group("from")
            level = len(dotted) - len(dotted.lstrip("."))
            base = absolute_module(module_name, is_package, dotted[level:] or None, level)
            imports.append(base)
            names = match.group("names").strip("() \t")
            for name in names.replace("\n", " ").split(","):
                name = name.strip().split(" as ")[0].strip()
                if name and name != "*" and name.isidentifier():
                    imports.append(f"{base}.{name}" if base else name)
        else:
            for mod in match.group("mods").split(","):
                mod = mod.strip().split(" as ")[0].strip()
                if mod:
                    imports.append(mod)
    return FileSummary(
        path=path,
        module_name=module_name,
        held_text=text,
        imports=tuple(dict.fromkeys(imports)),
        imports_warp=next(textscan.finditer_lines(_WARP_IMPORT_RE, "warp", text), None) is not None,
        kernel_names=tuple(m.group(1) for m in textscan.finditer_lines(_KERNEL_DEF_RE, "kernel", text)),
        differentiates=any(textscan.search_at(pattern, (literal,), text) for literal, pattern in _DIFFERENTIATES),
        mentions_warp="warp" in text,
        size=len(text),
    )


def compute_facts(path: str, text: str, module_name: str, *, skeleton: bool,
                  inherited: tuple[tuple[str, str], ...] = ()) -> tuple[FileFacts, ast.Module | None]:  # fmt: skip
    """One file's facts and the tree they were read from (None: it did not parse, or the
    tree is a skeleton). ``skeleton``: a batch parses module-level kernel bodies only where a
    tree rule reads the file; an editor parses the edited text whole (WCT900 for any syntax
    error in it) and hands the tree on to the tree rules; ``inherited``: the Warp names the
    file's ``*`` imports bind (``Project.star_warp_names``). Depends on its arguments only:
    workers run it on texts sent to them."""
    with gc_paused():  # a tree and its facts are acyclic: nothing for the collector to find
        if skeleton:
            tree, problem, blanked = parse_for_facts(text, path)
        else:
            (tree, problem), blanked = parse_source(text, path), frozenset()
        facts = extract(path, text, module_name, _is_package_path(path), tree=tree, problem=problem, blanked=blanked,
                        inherited=inherited)  # fmt: skip
    return facts, None if skeleton else tree


def _context_facts(path: str, text: str, module_name: str) -> FileFacts:
    """The facts of a module read from outside the project: extracted as a batch extracts a
    project file's (module-level Warp function bodies left out), whatever the mode, so that
    an editor and a batch read the same."""
    return compute_facts(path, text, module_name, skeleton=True)[0]


def _memoized_context_facts(memo: dict[tuple[str, str], tuple[str, FileFacts]], path: str, text: str,
                            module_name: str) -> FileFacts:  # fmt: skip
    """``_context_facts``, once per (path, module name) and text in ``memo``."""
    known = memo.get((path, module_name))
    if known is None or known[0] != text:
        known = memo[(path, module_name)] = (text, _context_facts(path, text, module_name))
    return known[1]


class Project:
    """All files of one lint run (or one editor workspace), by path and by module name."""

    def __init__(self) -> None:
        # The project's folder (real path) where the caller knows it (a batch's scope, an
        # editor's folder): the files' paths are read against it (``path_in_project``).
        self.root: str | None = None
        self._paths_in_project: dict[str, str] = {}
        self.files: dict[str, FileSummary] = {}
        self.by_module: dict[str, FileSummary] = {}
        self.rule_summarizers: dict[str, Callable[[FileSummary], Any]] = {}
        self.target_warp_version: tuple[int, ...] | None = None
        self.generation = 0  # bumped on every change of the file set (keys caches of derived facts)
        # Bumped whenever a file gets a new summary, also by an edit that keeps the model (a
        # comment): caches holding summaries key on it, the model's answers on ``generation``.
        self.revision = 0
        self._reexporters: frozenset[str] | None = None  # cache of _warp_reexporters()
        # (absolute module, imported name) -> what inference resolved it to (FileContext);
        # valid until any file changes.
        self._imported_qnames: dict[tuple[str, str], str | None] = {}
        # path -> (summary, imports_warp_names answer); valid until any file changes.
        self._warp_name_imports: dict[str, tuple[FileSummary, bool]] = {}
        # module name -> ast tree with parents (FileContext.ast_definition); valid until any file changes.
        self._ast_trees: dict[str, Any] = {}
        # (revision, path -> (modules its import runs, whether importing it creates kernels)):
        # the import graph's answers, asked for every file by WCT001 (per revision: another
        # file's summary changes what ``by_module`` holds).
        self._import_time: tuple[int, dict[str, list]] = (-1, {})
        # path -> (summary, facts): a file's facts depend on its text only (one summary per
        # text), so they survive changes of other files; the program joining them is
        # rebuilt per generation.
        self._facts: dict[str, tuple[FileSummary, FileFacts]] = {}
        # path -> the Warp names its facts were last read with (``star_warp_names``): what a
        # new text of the file is read with first
        self._inherited_last: dict[str, tuple[tuple[str, str], ...]] = {}
        self._star_names: tuple[int, dict[str, tuple[FileSummary, tuple[tuple[str, str], ...]]]] = (-1, {})
        self._handed_out: tuple[int, dict[str, dict[str, str]]] = (-1, {})  # ``_warp_names_handed_out``
        self.facts_cache: Any = None  # a cache.FactsCache: facts by content across runs (a batch with a cache)
        self._program: Program | None = None
        self.outside: OutsideModules | None = None  # what the current program reads from outside the project
        self._outside_facts: dict[tuple[str, str], tuple[str, FileFacts]] = {}  # (path, module) -> (text, facts)
        self._previous_program: Program | None = None  # the last program built, for the next one to reuse
        self._last_tree: tuple[str, ast.Module] | None = None
        # ``freeze()``: the file set is final, so the program may drop what no query asks of
        # the facts; ``_trimmed``: it did, and the facts it trimmed are not for another program.
        self._frozen = False
        self._trimmed = False
        _install_import_hook(self)

    def add(self, path: str, text: str) -> FileSummary:
        previous = self.files.get(path)
        if previous is not None and previous.text == text:
            return previous
        summary = summarize(path, text, self._free_module_name(path, previous))
        for code, summarizer in self.rule_summarizers.items():
            try:
                summary.extra[code] = summarizer(summary)
            except Exception:  # a broken summarizer must not stop the lint; the rule reports its own crash
                summary.extra[code] = None
        self.files[path] = summary
        self.revision += 1
        self._claim_module_name(summary)
        if previous is not None and self._model_unchanged(previous, summary):
            self._ast_trees.pop(summary.module_name, None)  # a tree of the old text: read again on demand
        else:
            self._changed()
        if previous is not None:
            # The file changed: astroid's cached tree of it is stale for other files' inference.
            MANAGER.astroid_cache.pop(summary.module_name, None)
        else:
            # A module of the same name from another project (an earlier lint in this
            # process) must not answer inference for this one. Warp's stubs stay.
            cached = MANAGER.astroid_cache.get(summary.module_name)
            name = summary.module_name
            if cached is not None and not (name == "warp" or name.startswith("warp.")):
                if getattr(cached, "file", None) != path:
                    MANAGER.astroid_cache.pop(name, None)
        return summary

    def remove(self, path: str) -> None:
        self._facts.pop(path, None)
        summary = self.files.pop(path, None)
        if summary is not None and self.by_module.get(summary.module_name) is summary:
            del self.by_module[summary.module_name]
            for other in self.files.values():  # a stub or namesake that was shadowed takes the name
                if other.module_name == summary.module_name:
                    self._claim_module_name(other)
        self._changed()

    def _free_module_name(self, path: str, previous: FileSummary | None) -> str:
        """The name Python gives the file, or, when another source already holds that name
        (two top-level ``ant.py`` in sibling folders, as in rewarped's envs), that name
        qualified by the file's folders until no file holds it: each source keeps a module
        of its own in the model."""
        if previous is not None:
            return previous.module_name
        name = module_name_for(Path(path))
        held = self.by_module.get(name)
        if held is None or held.path == path or is_stub(path) or is_stub(held.path):
            return name
        folders = Path(path).resolve().parent
        while name in self.by_module and folders.name:
            name, folders = f"{folders.name}.{name}", folders.parent
        return name

    def _claim_module_name(self, summary: FileSummary) -> None:
        """One file answers for a module name: the source. A stub never does, beside its
        source (``x.py`` and ``x.pyi``, as in Isaac Lab's packages) or alone (a ``*-stubs``
        package, a compiled module's stub): it never runs, so nothing in it is built."""
        if not is_stub(summary.path):
            self.by_module[summary.module_name] = summary

    def answers_for_module(self, summary: FileSummary) -> bool:
        """Whether the model knows this file by its module name (a stub beside its source is
        outside it: the rules that ask the model skip it)."""
        return self.by_module.get(summary.module_name) is summary

    def freeze(self) -> None:
        """No file will be added, changed or removed (a batch lint): the program model may
        drop facts no query needs, which keeps a large project's model smaller. A later
        change undoes this (the trimmed facts are extracted again)."""
        self._frozen = True

    def _model_unchanged(self, previous: FileSummary, summary: FileSummary) -> bool:
        """Whether an edit leaves everything the program model reads as it was: the same
        facts, positions included, and the same summary (an editor's keystroke in a comment,
        a docstring or a kernel's body). The program and every answer derived from it then
        still hold, and only the edited file's own checks run again."""
        if self._program is None or self._trimmed:
            return False
        cached = self._facts.get(previous.path)
        if cached is None or cached[0] is not previous:
            return False
        if (previous.module_name, previous.imports, previous.imports_warp, previous.kernel_names,
                previous.differentiates, previous.mentions_warp, previous.extra) != (
                summary.module_name, summary.imports, summary.imports_warp, summary.kernel_names,
                summary.differentiates, summary.mentions_warp, summary.extra):  # fmt: skip
            return False
        if self.facts(summary) != cached[1]:
            return False
        # The program's own object stands for the new text's equal facts: what the program
        # memoized by identity still answers for them, and the next program finds this file
        # unedited.
        self._facts[summary.path] = (summary, cached[1])
        return True

    def _changed(self) -> None:
        """Forget everything derived from the set of files."""
        if self._trimmed:
            self._facts.clear()  # trimmed for the old file set: another program needs them whole
            self._trimmed = False
            self._program = self._previous_program = None  # its facts lost calls: nothing to reuse
        self._frozen = False
        self.generation += 1
        self.revision += 1
        self._reexporters = None
        self._imported_qnames.clear()
        self._warp_name_imports.clear()
        self._ast_trees.clear()
        if self._program is not None:
            self._previous_program = self._program
        self._program = None

    # ------------------------------------------------------------------ the program model
    def facts(self, summary: FileSummary) -> FileFacts:
        """One file's facts (extracted once per text, and again where the Warp names its
        ``*`` imports bind are not the ones they were read with: ``star_warp_names``)."""
        facts = self._facts_read(summary)
        exports = facts.exports
        if exports is None or "*" not in exports:
            return facts  # most files: no ``*`` import, nothing inherited
        if not facts.inherited and any(dotted == "warp" or dotted.startswith("warp.") for dotted in facts.aliases.values()):
            # A file that imports Warp itself names it through its own imports: reading it
            # again for what its ``*`` imports hand out would cost a second extraction of most
            # files of a package built on ``*`` imports (Warp's own: 172 of 476).
            return facts
        inherited = self.star_warp_names(summary)
        if inherited == facts.inherited:
            return facts
        return self.stored_facts(summary, inherited) or self._extract(summary, inherited)

    def _facts_read(self, summary: FileSummary) -> FileFacts:
        """The facts held for the text (with whatever names they inherited), else those
        stored or extracted with the names inherited last (none at first). Its top-level
        bindings (``exports``) do not depend on what it inherits."""
        cached = self._facts.get(summary.path)
        if cached is not None and cached[0] is summary:
            return cached[1]
        inherited = self._inherited_last.get(summary.path, ())
        facts = self.stored_facts(summary, inherited)
        if facts is not None:
            self._last_tree = None
            return facts
        return self._extract(summary, inherited)

    def _extract(self, summary: FileSummary, inherited: tuple[tuple[str, str], ...]) -> FileFacts:
        text = summary.text
        facts, tree = compute_facts(summary.path, text, summary.module_name, skeleton=self._frozen, inherited=inherited)
        if inherited:
            self._inherited_last[summary.path] = inherited
        else:
            self._inherited_last.pop(summary.path, None)
        self.adopt_facts(summary, facts)
        # The tree rules of the same text may take this tree instead of parsing again (an
        # editor's keystroke: the edited file is extracted, then checked). A batch extracts
        # every file first: the last tree would only be held.
        self._last_tree = (text, tree) if tree is not None and not self._frozen else None
        return facts

    def stored_facts(self, summary: FileSummary, inherited: tuple[tuple[str, str], ...] = ()) -> FileFacts | None:
        """``summary``'s facts from the facts cache, adopted; None when it has none."""
        stored = self.facts_cache
        if stored is None:
            return None
        facts = stored.get_facts(self._facts_key(summary, inherited))
        if facts is not None:
            self._facts[summary.path] = (summary, facts)
        return facts

    def _facts_key(self, summary: FileSummary, inherited: tuple[tuple[str, str], ...] = ()) -> str:
        is_package = _is_package_path(summary.path)
        # Names inherited through ``*`` imports are part of what the facts are read with.
        text = summary.text if not inherited else f"{summary.text}\0{inherited!r}"
        return self.facts_cache.facts_key(summary.path, summary.module_name, is_package, self._frozen, text)

    def star_warp_names(self, summary: FileSummary) -> tuple[tuple[str, str], ...]:
        """The Warp names ``summary``'s module-level ``*`` imports of project modules bind
        and its own top-level bindings do not (``from .hashing import *`` where ``hashing``
        does ``import warp as wp``: ``("wp", "warp")``), sorted. A module with ``__all__``
        hands out what it lists, which its bindings do not tell: none of its names counts."""
        memo = self._of_this_revision("_star_names")
        found = memo.get(summary.path)
        if found is None or found[0] is not summary:
            found = memo[summary.path] = (summary, self._star_warp_names(summary))
        return found[1]

    def _star_warp_names(self, summary: FileSummary) -> tuple[tuple[str, str], ...]:
        exports = self._facts_read(summary).exports or {}
        star = exports.get("*")
        if star is None:
            return ()
        names: dict[str, str] = {}
        for source in star.target.split(","):
            for name, warp in self._warp_names_handed_out(source, ()).items():
                if name not in exports:  # the file's own binding is its own
                    names.setdefault(name, warp)
        return tuple(sorted(names.items()))

    def _warp_names_handed_out(self, module: str, path: tuple[str, ...]) -> dict[str, str]:
        """The public names a ``*`` import of project ``module`` binds to Warp names: its own
        top-level bindings, then those of its own ``*`` imports (memoized per revision;
        ``path``: the modules whose ``*`` imports led here, a cycle's end). None of a module
        with ``__all__``, which its bindings cannot tell."""
        memo = self._of_this_revision("_handed_out")
        found = memo.get(module)
        if found is not None:
            return found
        bound = self.exports(module)
        names: dict[str, str] = {}
        if bound is not None and "__all__" not in bound and module not in path and len(path) < 16:
            for name in bound:
                if name == "*" or name.startswith("_"):
                    continue
                warp = resolve_export(self, module, name)
                if warp is not None and warp != EXPORT_UNKNOWN and (warp == "warp" or warp.startswith("warp.")):
                    names[name] = warp
            inner = bound.get("*")
            for source in inner.target.split(",") if inner is not None else ():
                for name, warp in self._warp_names_handed_out(source, (*path, module)).items():
                    if name not in bound:
                        names.setdefault(name, warp)
        if not path or module not in path:
            memo[module] = names
        return names

    def _of_this_revision(self, attribute: str) -> dict:
        """The answers held in ``attribute`` (a (revision, dict) pair), emptied when a file
        got a new summary since they were given."""
        revision, answers = getattr(self, attribute)
        if revision != self.revision:
            answers = {}
            setattr(self, attribute, (self.revision, answers))
        return answers

    def take_tree(self, text: str) -> ast.Module | None:
        """The tree parsed for the last extracted text, once, if it is ``text``'s."""
        last, self._last_tree = self._last_tree, None
        if last is not None and last[0] is text:
            return last[1]
        return None

    def in_program(self, summary: FileSummary) -> bool:
        """Files the model reads: those that touch Warp, and those that import a project
        module (an entry point that drives Warp code written elsewhere)."""
        if self.uses_warp(summary):
            return True
        return any(imp in self.by_module or imp.rsplit(".", 1)[0] in self.by_module for imp in summary.imports)

    def path_in_project(self, path: str) -> str:
        """``path`` inside the project (``program.path_in_project``): what tells a test or an
        example by its folders, wherever the project lives."""
        found = self._paths_in_project.get(path)
        if found is None:
            found = self._paths_in_project[path] = path_in_project(path, self.root)
        return found

    def program(self) -> Program:
        """The model of every linted file that takes part in the Warp program: files that
        touch Warp or import project modules, and the helpers those import (a memoizing
        decorator, a settings module). Built when a rule first asks."""
        if self._program is None:
            previous, self._previous_program = self._previous_program, None
            self.outside = self._outside_modules()
            program = Program((self.facts(s) for s in self.program_members()), previous=previous,
                              reusable=not self._frozen, root=self.root, outside=self.outside.facts)  # fmt: skip
            if self._frozen:
                self._trimmed = True  # first: a trim that a time limit cuts short has trimmed shared facts too
                program.loose_names()  # what an unknown call inside a tape can get to reads every call
                program.forget_calls_that_reach_nothing()
            self._program = program  # last: a time limit in the build leaves no half-built program
        return self._program

    def _outside_modules(self) -> OutsideModules:
        """What the next program may read from outside the project: looked up and read anew
        per program (an editor's next program sees a changed context file), their facts
        extracted once per text (``_context_facts``)."""
        tops = frozenset(name.split(".", 1)[0] for name in self.by_module)
        # Not a bound method: the project holds these modules, and a cycle back to it would
        # keep every project of a batch (whose collector is paused) alive to the end.
        return OutsideModules(self.root, tops.__contains__, functools.partial(_memoized_context_facts, self._outside_facts))

    def program_members(self) -> list[FileSummary]:
        """The files whose facts ``program`` joins, in the order it reads them."""
        members = {s.path: s for s in list(self.files.values()) if self.in_program(s) and self.answers_for_module(s)}
        for summary in list(members.values()):
            for imported in self.imported_project_modules(summary):
                members.setdefault(imported.path, imported)
        return list(members.values())

    def has_facts(self, summary: FileSummary) -> bool:
        """Whether ``facts(summary)`` is answered without extracting."""
        cached = self._facts.get(summary.path)
        return cached is not None and cached[0] is summary

    def adopt_facts(self, summary: FileSummary, facts: FileFacts) -> None:
        """``summary``'s facts, just extracted (here or in a worker process), kept and stored
        in the facts cache (before the program trims them)."""
        if self.facts_cache is not None and self.facts_cache.stores(summary.path):
            self.facts_cache.put_facts(self._facts_key(summary), facts)
        self._facts[summary.path] = (summary, facts)

    @property
    def extracts_skeletons(self) -> bool:
        """Whether facts are extracted with module-level Warp function bodies left out (a
        batch: ``freeze``)."""
        return self._frozen

    def exports(self, module_name: str) -> dict[str, Export] | None:
        """A project module's top-level bindings (None: not a project module, or unparsable)."""
        summary = self.by_module.get(module_name)
        return None if summary is None else self._facts_read(summary).exports

    def ast_tree(self, module_name: str, path: str | None = None) -> Any:
        """The ``ast`` tree (parents attached) of a project module, or of a source file on
        disk astroid found for it; None when neither parses."""
        if module_name in self._ast_trees:
            return self._ast_trees[module_name]
        summary = self.by_module.get(module_name)
        text = summary.text if summary is not None else None
        if text is None and path and str(path).endswith(".py"):
            try:
                text = Path(path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                text = None
        tree = None
        if text is not None:
            try:
                tree = parse_text(text)
                attach_parents(tree)
                module_path = path or (summary.path if summary is not None else "")
                set_module_of(tree, module_name, Path(module_path).stem == "__init__")
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                tree = None
        self._ast_trees[module_name] = tree
        return tree

    def module(self, name: str) -> FileSummary | None:
        return self.by_module.get(name)

    def _warp_reexporters(self) -> frozenset[str]:
        # Cached between changes: the gate below asks once per file, O(files) each time.
        if self._reexporters is None:
            self._reexporters = frozenset(name for name, s in self.by_module.items() if s.imports_warp)
        return self._reexporters

    def uses_warp(self, summary: FileSummary) -> bool:
        """Cheap gate: does this file (possibly through a project module) touch Warp at all?"""
        return summary.mentions_warp or self.imports_warp_reexporter(summary)

    def imports_warp_reexporter(self, summary: FileSummary) -> bool:
        """The file imports from a project module that imports warp: names it imports there
        may be Warp's, which the facts (resolving through the file's own imports) cannot tell."""
        reexporters = self._warp_reexporters()
        return any(imp in reexporters or imp.rsplit(".", 1)[0] in reexporters for imp in summary.imports)

    def facts_may_miss_warp_names(self, summary: FileSummary) -> bool:
        """A Warp name the facts may not resolve (they read the file's own imports only): a
        local alias of the config (``cfg = wp.config``), or a name imported from a project
        module that re-exports Warp's (``from pkg.api import wp``)."""
        return bool(_CONFIG_ALIAS_RE.search(summary.text)) or self.imports_warp_names(summary)

    def imports_warp_names(self, summary: FileSummary) -> bool:
        """Some name the file takes from a project module may be a Warp name there: ``from
        pkg.api import wp``, ``from pkg.api import kernel_decorator`` (bound to ``wp.kernel``),
        ``import pkg.api as api`` and then ``api.wp``, or a ``*`` import. The facts name
        things through the file's own imports and cannot tell what those stand for; a
        project function or class imported by name (most imports) is no Warp name.
        """
        # Asked by several rules' gates and WCT013's query per file: answered once per text
        # and file set.
        cached = self._warp_name_imports.get(summary.path)
        if cached is None or cached[0] is not summary:
            cached = self._warp_name_imports[summary.path] = (summary, self._imports_warp_names(summary))
        return cached[1]

    def _imports_warp_names(self, summary: FileSummary) -> bool:
        if not self.imports_warp_reexporter(summary):
            return False
        text = summary.text
        if textscan.search_at(_STAR_IMPORT_RE, "import", text):
            return True
        for local, target in self.facts(summary).aliases.items():
            if target == "warp" or target.startswith("warp."):
                continue  # Warp's own names: the facts name these
            if target in self.by_module:  # a project module bound to ``local``: read as ``local.x``
                if self._attributes_may_name_warp(local, target, text):
                    return True
                continue
            module, _, name = target.rpartition(".")
            if module in self.by_module and resolve_export(self, module, name) is not None:
                return True
        return False

    def _attributes_may_name_warp(self, local: str, module: str, text: str) -> bool:
        """``local.a.b`` somewhere in the text reaches a Warp name through ``module``."""
        pattern = re.compile(rf"(?<![\w.]){re.escape(local)}((?:[ \t]*\.[ \t]*\w+)+)")
        for match in textscan.finditer_at(pattern, local, text):
            current = module
            for part in match.group(1).split(".")[1:]:
                part = part.strip()
                if f"{current}.{part}" in self.by_module:
                    current = f"{current}.{part}"  # a submodule: its attributes come next
                    continue
                if resolve_export(self, current, part) is not None:
                    return True
                break
        return False

    def imported_project_modules(self, summary: FileSummary) -> list[FileSummary]:
        """Project modules ``summary`` imports directly, in import order."""
        seen: dict[str, FileSummary] = {}
        for imp in summary.imports:
            target = self.by_module.get(imp) or self.by_module.get(imp.rsplit(".", 1)[0])
            if target is not None and target.module_name != summary.module_name:
                seen.setdefault(target.module_name, target)
        return list(seen.values())

    def defines_kernels_transitively(self, summary: FileSummary, _seen: set[str] | None = None) -> bool:
        """True when importing this module creates kernels that keep wp.config's options of
        that moment (itself, ``creates_kernels_at_import``, or the project modules its import
        runs)."""
        if _seen is None:
            entry = self._import_time_entry(summary)
            if len(entry) < 3:
                entry.append(self.defines_kernels_transitively(summary, set()))
            return entry[2]
        if summary.module_name in _seen:
            return False
        _seen.add(summary.module_name)
        if self.creates_kernels_at_import(summary):
            return True
        return any(self.defines_kernels_transitively(dep, _seen) for dep in self.imported_at_import_time(summary))

    def creates_kernels_at_import(self, summary: FileSummary) -> bool:
        """Importing the module (its own body) creates kernels that keep wp.config's
        creation-time options of that moment: the model's ``import_definitions`` (a file
        that defines only Warp functions and structs at import, its kernels made later by
        factories into modules of their own, creates none). A file outside the program
        touches no Warp; its text decides, should it name a kernel."""
        program = self.program()
        facts = self.facts(summary)
        if facts.module not in program.modules:
            return summary.defines_kernels
        return bool(program.import_definitions(facts.module))

    def imported_at_import_time(self, summary: FileSummary) -> list[FileSummary]:
        """Project modules that importing ``summary``'s module imports: its module-level
        imports (in ``if``/``try`` blocks too), not those inside functions, which run only
        when called (a package ``__init__`` whose ``def main(): from .cli import run``)."""
        return list(self._import_time_entry(summary)[1])

    def _import_time_entry(self, summary: FileSummary) -> list:
        """[summary, the project modules importing it runs(, whether that creates kernels)],
        computed once per revision."""
        by_path = self._of_this_revision("_import_time")
        entry = by_path.get(summary.path)
        if entry is None or entry[0] is not summary:
            seen: dict[str, FileSummary] = {}
            for imp, _line, top in self.facts(summary).imports:
                if not top:
                    continue
                target = self.by_module.get(imp) or self.by_module.get(imp.rsplit(".", 1)[0])
                if target is not None and target.module_name != summary.module_name:
                    seen.setdefault(target.module_name, target)
            entry = by_path[summary.path] = [summary, list(seen.values())]
        return entry


# One process-wide hook; it asks whichever project is active.
_active_projects: list[Project] = []


def _install_import_hook(project: Project) -> None:
    _active_projects[:] = [project]
    if getattr(_install_import_hook, "_done", False):
        return

    def find_in_project(modname: str):
        for proj in _active_projects:
            summary = proj.by_module.get(modname)
            if summary is not None:
                return build_astroid(summary.text, modname, summary.path)
        raise AstroidBuildingError(f"{modname} is not a module of the linted project")

    MANAGER.register_failed_import_hook(find_in_project)
    _install_import_hook._done = True  # type: ignore[attr-defined]


def deactivate(project: Project) -> None:
    """``project`` is done: astroid's import hook no longer holds it. A batch's model is
    millions of objects; a program that called ``batch.run_lint`` spent 7 s exiting after a
    30 s lint of a 51 MB corpus (the interpreter's last collection and teardown), against
    0.4 s when the run lets go of them itself. (The CLI skips teardown anyway.)"""
    _active_projects[:] = [p for p in _active_projects if p is not project]


def activate(project: Project) -> None:
    """Make ``project`` the one astroid's import hook consults (call before any astroid use).

    Warp's stubs go into astroid's cache here, not when a linter starts: building them
    builds astroid's model of ``builtins`` (11 MiB), and most lint runs infer nothing."""
    warp_stub.install()
    _active_projects[:] = [project]
