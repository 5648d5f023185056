"""What a rule sees while checking one file: the ``ast`` tree, Warp name resolution,
reporting, edits.

Rules read stdlib ``ast`` nodes with parent links (``syntax.attach_parents``). Questions
the syntax cannot answer (a constant computed by an expression, a name re-exported by a
project module, a decorator defined in another file) go to astroid through ``infer``:
the file's astroid tree is built on the first such question only, and the ``ast`` node is
matched to its astroid twin by position.
"""

from __future__ import annotations

import ast
import re
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from warp_ct.analyzer import syntax
from warp_ct.analyzer.deadline import DeadlineExceeded, hard_deadline
from warp_ct.analyzer.exports import UNKNOWN, resolve_export
from warp_ct.analyzer.model import Applicability, Finding, Fix, Range, Severity, TextEdit
from warp_ct.analyzer.positions import LineIndex
from warp_ct.analyzer.syntax import enclosing_functions, split_dotted

if TYPE_CHECKING:
    from astroid import nodes as anodes

    from warp_ct.analyzer.facts import FileFacts
    from warp_ct.analyzer.program import Program
    from warp_ct.analyzer.project import Project
    from warp_ct.analyzer.rules.base import Rule

# Older Warp re-exported its API from these modules; user code still imports from them.
_WARP_ALIAS_PREFIXES = ("warp._src.context.", "warp.context.", "warp._src.types.", "warp._src.")

# Inference is where pathological files hide: cap the CPU time one file may spend in it.
DEFAULT_INFERENCE_BUDGET_S = 2.0

_NO_VALUE = object()
_DEF_HEAD_RE = re.compile(r"(?:async\s+)?def\s+\w+|class\s+\w+")
_DEF_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Binding nodes whose bound name is their ``name`` attribute (MatchMapping: ``rest``).

__all__ = [
    "DEFAULT_INFERENCE_BUDGET_S",
    "FileContext",
    "KernelDecorator",
    "enclosing_functions",
    "imported_qname",
    "normalize_warp_name",
    "split_dotted",
]


def normalize_warp_name(name: str) -> str:
    for prefix in _WARP_ALIAS_PREFIXES:
        if name.startswith(prefix):
            rest = name[len(prefix) :]
            return "warp." + rest
    return name


def imported_qname(node: ast.AST) -> str | None:
    """The dotted name a Name/Attribute denotes through plain imports (no inference).

    ``functools.cache`` with ``import functools``, ``cache`` with ``from functools import
    cache``, ``ft.lru_cache`` with ``import functools as ft``. None when not an import.
    """
    split = split_dotted(node)
    if split is None:
        return None
    base, attrs = split
    _scope, bindings = syntax.lookup(base)
    if not bindings:
        return None
    binding = bindings[-1]
    root: str | None = None
    if isinstance(binding, ast.Import):
        for alias in binding.names:
            if alias.asname == base.id:
                root = alias.name
            elif alias.asname is None and alias.name.split(".")[0] == base.id:
                root = base.id
    elif isinstance(binding, ast.ImportFrom) and not binding.level:
        for alias in binding.names:
            if (alias.asname or alias.name) == base.id:
                root = f"{binding.module}.{alias.name}"
    if root is None:
        return None
    return ".".join([root, *attrs])


def _astroid_kind(node: Any) -> str:
    name = node.__class__.__name__
    if name in ("AssignName", "DelName"):
        return "name"
    if name in ("AssignAttr", "DelAttr"):
        return "attribute"
    if name == "Const":
        return "constant"
    return name.lower()


def _ast_kind(node: ast.AST) -> str:
    return "name" if isinstance(node, ast.arg) else node.__class__.__name__.lower()


@dataclass(frozen=True)
class KernelDecorator:
    """A ``@wp.kernel`` / ``@wp.kernel(...)`` (or func/struct) decorator on a function."""

    funcdef: ast.FunctionDef | ast.AsyncFunctionDef
    decorator: ast.expr
    call: ast.Call | None
    kind: str  # "kernel", "func", "struct"

    @cached_property
    def keywords(self) -> dict[str, ast.expr]:
        if self.call is None:
            return {}
        return {kw.arg: kw.value for kw in self.call.keywords if kw.arg}

    def keyword_const(self, name: str, default: Any = None) -> Any:
        value = self.keywords.get(name)
        if isinstance(value, ast.Constant):
            return value.value
        return default

    @property
    def is_unique(self) -> bool:
        return self.keyword_const("module") == "unique"  # a literal only: see UNIQUE_MODULE_TEXT


# Warp code as text, for the project gates (``Rule.needs_tree``), which decide before any tree.
# What a ``module="unique"`` keyword looks like in source (``KernelDecorator.is_unique``
# reads a string literal only): a file without this text has no unique kernel.
UNIQUE_MODULE_TEXT = r"\bmodule\s*=[\s(]*[uUrR]?['\"]unique['\"]"
# A ``@wp.kernel`` / ``@kernel`` decorator (matches start with "@").
KERNEL_DECORATOR_RE = re.compile(r"@[ \t]*(?:[\w.]+\.)?kernel\b")


@dataclass
class FileContext:
    path: str
    text: str
    module_name: str
    tree: ast.Module
    project: "Project"
    target_warp_version: tuple[int, ...] | None = None
    inference_budget_s: float = DEFAULT_INFERENCE_BUDGET_S
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    current_rule: "Rule | None" = None
    # Per-file scratch space for rules that collect before deciding (keyed by rule code).
    state: dict[str, Any] = field(default_factory=dict)
    # id(node) -> (node, answer); the node is kept so its id cannot be reused by another.
    _name_cache: dict[int, tuple[Any, str | None]] = field(default_factory=dict)
    _inference_spent_s: float = 0.0
    _budget_note_added: bool = False
    _warp_capable: frozenset[str] | None = None
    _inherited: dict[str, str] | None = None  # ``_inherited_names``
    _single_bindings: dict[str, ast.AST] = field(default_factory=dict)
    # id(root) -> (root, its Warp-capable names) of other files' trees (project.ast_tree).
    _foreign_trees: dict[int, tuple[ast.AST, frozenset[str]]] = field(default_factory=dict)
    _astroid_tree: Any = None
    _asked_astroid: bool = False
    _astroid_index: dict[tuple, Any] | None = None
    _line_index: LineIndex | None = None

    def __post_init__(self) -> None:
        syntax.set_module_of(self.tree, self.module_name, self.is_package)

    @property
    def index(self) -> LineIndex:
        """Line and column conversion, built when the first finding needs it (most files have none)."""
        if self._line_index is None:
            self._line_index = LineIndex(self.text)
        return self._line_index

    @property
    def is_package(self) -> bool:
        return Path(self.path).stem == "__init__"

    @property
    def program(self) -> "Program":
        """The model of the whole linted program (facts of every file joined)."""
        return self.project.program()

    @property
    def facts(self) -> "FileFacts":
        """This file's facts (``facts.py``), as the program model sees them."""
        summary = self.project.files.get(self.path)
        if summary is None or summary.text is not self.text:
            summary = self.project.add(self.path, self.text)
        return self.project.facts(summary)

    # ------------------------------------------------------------------ reporting
    def report(
        self,
        node_or_range: ast.AST | Range,
        message: str,
        *,
        fixes: Iterable[Fix] = (),
        severity: Severity | None = None,
    ) -> None:
        rule = self.current_rule
        assert rule is not None, "report() is only valid while a rule runs"
        rng = node_or_range if isinstance(node_or_range, Range) else self.node_range(node_or_range)
        self.findings.append(
            Finding(
                rule=rule.code,
                name=rule.name,
                path=self.path,
                range=rng,
                message=message,
                severity=severity if severity is not None else rule.severity,
                fixes=tuple(fixes),
            )
        )

    # ------------------------------------------------------------------ positions
    def node_range(self, node: ast.AST) -> Range:
        """The node's span in characters. Functions/classes: the ``def name`` head only."""
        if isinstance(node, _DEF_TYPES):
            line0 = node.lineno - 1
            line = self.index.line_text(line0)
            start = self.index.char_from_byte(line0, node.col_offset)
            match = _DEF_HEAD_RE.match(line, start)
            end = match.end() if match else len(line.rstrip("\r\n"))
            return Range.from_coords(line0, start, line0, end)
        lineno = getattr(node, "lineno", None) or 1
        col = getattr(node, "col_offset", None) or 0
        end_lineno = getattr(node, "end_lineno", None) or lineno
        end_col = getattr(node, "end_col_offset", None)
        return self._range(lineno, col, end_lineno, end_col if end_col is not None else col)

    def _range(self, lineno: int, col: int, end_lineno: int, end_col: int) -> Range:
        start_line, end_line = lineno - 1, end_lineno - 1
        return Range.from_coords(
            start_line,
            self.index.char_from_byte(start_line, col),
            end_line,
            self.index.char_from_byte(end_line, end_col),
        )

    def source_of(self, node: ast.AST) -> str:
        """The exact source text of a node (as written, unlike ``syntax.as_string``)."""
        if isinstance(node, _DEF_TYPES):
            return syntax.as_string(node)
        rng = self.node_range(node)
        start = self.index.offset(rng.start.line, rng.start.character)
        end = self.index.offset(rng.end.line, rng.end.character)
        return self.text[start:end]

    def line_indent(self, line0: int) -> str:
        line = self.index.line_text(line0)
        return line[: len(line) - len(line.lstrip(" \t"))]

    # ------------------------------------------------------------------ edits
    def replace_node(self, node: ast.AST, new_text: str) -> TextEdit:
        return TextEdit(self.node_range(node), new_text)

    def insert_at(self, line0: int, character: int, new_text: str) -> TextEdit:
        return TextEdit(Range.from_coords(line0, character, line0, character), new_text)

    def delete_lines(self, first_line0: int, last_line0: int) -> TextEdit:
        """Delete whole lines first..last (inclusive), newline included."""
        return TextEdit(Range.from_coords(first_line0, 0, last_line0 + 1, 0), "")

    @staticmethod
    def fix(title: str, *edits: TextEdit, safe: bool = True) -> Fix:
        return Fix(title, tuple(edits), Applicability.SAFE if safe else Applicability.UNSAFE)

    # ------------------------------------------------------------------ Warp names
    def warp_name(self, node: ast.AST | None) -> str | None:
        """The Warp API a Name/Attribute denotes, e.g. ``"warp.kernel"``, ``"warp.config.mode"``.

        Resolution is syntactic through the import statements of the enclosing scopes
        (relative imports inside the warp package included); a name imported from a
        project module that uses Warp (a re-export) is followed with astroid inference.
        Returns None for anything that is not (provably) Warp.
        """
        if node is None:
            return None
        key = id(node)
        cached = self._name_cache.get(key)
        if cached is not None and cached[0] is node:
            return cached[1]
        result = self._resolve_warp_name(node, depth=0)
        self._name_cache[key] = (node, result)
        return result

    def call_name(self, call: ast.AST | None) -> str | None:
        """``warp_name`` of a call's callee (None when ``call`` is not a Call)."""
        if not isinstance(call, ast.Call):
            return None
        return self.warp_name(call.func)

    def _resolve_warp_name(self, node: ast.AST, depth: int) -> str | None:
        if depth > 4:
            return None
        split = split_dotted(node)
        if split is None:
            return None
        base, attrs = split
        # np.zeros, len, self.x...: most names cannot lead to Warp at all. (A node may sit in
        # another file's tree, from ``ast_definition`` say: that file's names count.)
        tree = syntax.root_of(base)
        own = tree is self.tree
        if base.id not in (self._warp_capable_names() if own else self._foreign_capable_names(tree)):
            if not own or base.id not in self._inherited_names():
                return None
        root = self._resolve_name_binding(base, depth, own=own)
        if root is None:
            return None
        full = ".".join([root, *attrs])
        if full == "warp" or full.startswith("warp."):
            return normalize_warp_name(full)
        return None

    def calls_to(self, *qualified: str) -> list[ast.Call]:
        """Calls of the file whose callee is one of these Warp APIs (``"warp.launch"``...),
        in source order; cached per file.

        A call ``x.y.f(...)`` can only resolve to an API whose last part is ``f``: most
        calls are ruled out without resolving their names.
        """
        key = ("__calls_to__", qualified)
        found = self.state.get(key)
        if found is None:
            last_parts = {name.rsplit(".", 1)[-1] for name in qualified}
            found = [
                call
                for call in syntax.nodes_of_class(self.tree, ast.Call)
                if not (isinstance(call.func, ast.Attribute) and call.func.attr not in last_parts)
                and self.call_name(call) in qualified
            ]
            self.state[key] = found
        return found

    def _inherited_names(self) -> dict[str, str]:
        """The Warp names the file's ``*`` imports bind (``FileFacts.inherited``)."""
        found = self._inherited
        if found is None:
            found = self._inherited = dict(self.facts.inherited)
        return found

    def _warp_capable_names(self) -> frozenset[str]:
        """``warp_capable_names`` of this file."""
        if self._warp_capable is None:
            self._index_bindings()
        return self._warp_capable  # type: ignore[return-value]

    def _foreign_capable_names(self, tree: ast.AST) -> frozenset[str]:
        """``warp_capable_names`` of another file's tree (kept with it: ids are not reused)."""
        entry = self._foreign_trees.get(id(tree))
        if entry is None or entry[0] is not tree:
            entry = self._foreign_trees[id(tree)] = (tree, warp_capable_names(tree))
        return entry[1]

    def _index_bindings(self) -> None:
        """The Warp-capable names of the file, and for those bound exactly once, at module
        level, that binding: such a name means the same thing everywhere in the file, so
        ``lookup`` is not needed for it."""
        capable = warp_capable_names(self.tree)
        self._warp_capable = capable
        # Every binding counts, of any kind: parameters and loop variables shadow too.
        counts = syntax.binding_counts(self.tree)
        module_level = syntax.scope_bindings(self.tree)
        self._single_bindings = {
            name: module_level[name][0] for name in capable if counts.get(name) == 1 and name in module_level
        }

    def _resolve_name_binding(self, name: ast.Name, depth: int, *, own: bool) -> str | None:
        """The dotted name ``name`` is bound to; ``own``: it is a node of this file's tree."""
        single = self._single_bindings.get(name.id) if own else None
        bindings = [single] if single is not None else syntax.lookup(name)[1]
        if not bindings:
            # Bound by no statement of the file: a ``*`` import may bind it to a Warp name.
            return self._inherited_names().get(name.id) if own else None
        binding = bindings[-1]
        if isinstance(binding, ast.Import):
            for alias in binding.names:
                if alias.asname == name.id:
                    return alias.name
                if alias.asname is None and alias.name.split(".")[0] == name.id:
                    return name.id
            return None
        if isinstance(binding, ast.ImportFrom):
            # ``name`` may sit in another file's tree (a definition ``ast_definition`` found).
            module_name, is_package = syntax.module_of(name) or (self.module_name, self.is_package)
            absolute = syntax.absolute_module(module_name, is_package, binding.module, binding.level)
            for alias in binding.names:
                if (alias.asname or alias.name) != name.id:
                    continue
                if absolute == "warp" or absolute.startswith("warp."):
                    return f"{absolute}.{alias.name}"
                if len(bindings) != 1:
                    return self._infer_warp_qname(name) if self._may_reexport_warp(absolute) else None
                return self._imported_qname(absolute, alias.name, name)
            return None
        if isinstance(binding, ast.Name):
            assign = binding.parent  # type: ignore[attr-defined]
            # ``kernel = wp.kernel`` / ``cfg = wp.config``: follow one simple alias.
            if isinstance(assign, ast.Assign) and len(assign.targets) == 1 and assign.targets[0] is binding:
                if isinstance(assign.value, (ast.Name, ast.Attribute)):
                    return self._resolve_warp_name(assign.value, depth + 1)
        return None

    def _may_reexport_warp(self, module: str) -> bool:
        """Only a linted project module that mentions warp can hand out Warp names; anything
        else (the standard library, numpy, ...) is not worth an inference."""
        summary = self.project.by_module.get(module)
        if summary is None and "." in module:
            summary = self.project.by_module.get(module.rsplit(".", 1)[0])
        return summary is not None and self.project.uses_warp(summary)

    def _imported_qname(self, absolute: str, original: str, name: ast.Name) -> str | None:
        """``_infer_warp_qname`` of a name bound only by ``from X import original``: its value
        depends on module X alone, so the answer is shared by every file of the project."""
        if not self._may_reexport_warp(absolute):
            return None
        if syntax.root_of(name) is not self.tree:
            return None  # another file's node: not inferable from here, and not an answer to share
        cache = self.project._imported_qnames
        key = (absolute, original)
        if key in cache:
            return cache[key]
        result = resolve_export(self.project, absolute, original)
        if result == UNKNOWN:
            # Asked of module X itself: this file's astroid tree is not needed for it.
            values, _ = self._run_inference(lambda: self._exported(absolute, original), limit=8)
            result = _qname_of(values)
        elif result is not None:
            result = normalize_warp_name(result)
        if not self._budget_note_added and self._inference_spent_s < self.inference_budget_s:
            cache[key] = result  # never share an answer the budget cut short
        return result

    def _exported(self, module_name: str, name: str) -> Iterator[Any]:
        """What ``from module_name import name`` binds, inferred in that module."""
        from astroid import MANAGER

        from warp_ct.analyzer.project import activate

        activate(self.project)
        yield from MANAGER.ast_from_module_name(module_name).igetattr(name)

    def _infer_warp_qname(self, node: ast.AST) -> str | None:
        return _qname_of(self.infer(node))

    # ------------------------------------------------------------------ inference
    @property
    def used_astroid(self) -> bool:
        """Did some question of this file need astroid (its caches then need trimming)?"""
        return self._astroid_tree is not None or self._asked_astroid

    def astroid_tree(self) -> "anodes.Module | None":
        """This file's astroid tree, built on first use (None when astroid cannot build it)."""
        if self._astroid_tree is None:
            from warp_ct.analyzer.project import activate, build_astroid

            activate(self.project)
            try:
                self._astroid_tree = build_astroid(self.text, self.module_name, self.path)
            except Exception:  # noqa: BLE001 - ast parsed it; whatever astroid trips on, inference is off
                self._astroid_tree = False
        return self._astroid_tree or None

    def astroid_node(self, node: ast.AST) -> "anodes.NodeNG | None":
        """The astroid twin of an ``ast`` node of this file (matched by kind and position)."""
        if self._astroid_index is None:
            tree = self.astroid_tree()
            index: dict[tuple, Any] = {}
            if tree is not None:
                from astroid import nodes as anodes

                for twin in tree.nodes_of_class(anodes.NodeNG):
                    kind = _astroid_kind(twin)
                    if isinstance(twin, (anodes.FunctionDef, anodes.ClassDef)):
                        index.setdefault((kind, twin.fromlineno, twin.name), twin)
                    else:
                        position = (twin.lineno, twin.col_offset, twin.end_lineno, twin.end_col_offset)
                        index.setdefault((kind, *position), twin)
            self._astroid_index = index
        kind = _ast_kind(node)
        if isinstance(node, _DEF_TYPES):
            return self._astroid_index.get((kind, node.lineno, node.name))
        position = (
            getattr(node, "lineno", None),
            getattr(node, "col_offset", None),
            getattr(node, "end_lineno", None),
            getattr(node, "end_col_offset", None),
        )
        return self._astroid_index.get((kind, *position))

    def infer(self, node: ast.AST, limit: int = 8) -> list[Any]:
        """Inferred values of ``node`` as astroid nodes (uninferable ones dropped), within
        the file's budget."""
        return self._infer(node, limit)[0]

    def _infer(self, node: ast.AST, limit: int) -> tuple[list[Any], bool]:
        """(inferred values, whether some branch was uninferable)."""

        def values() -> Iterator[Any]:
            # Positions only identify nodes of this file's tree, not of other files'.
            twin = self.astroid_node(node) if syntax.root_of(node) is self.tree else None
            if twin is None:
                yield None
                return
            yield from twin.infer()

        return self._run_inference(values, limit)

    def _run_inference(self, values: Callable[[], Iterator[Any]], limit: int) -> tuple[list[Any], bool]:
        """Collect up to ``limit`` inferred values within the file's budget: (values,
        whether some branch was uninferable)."""
        uninferable = False
        if self._inference_spent_s >= self.inference_budget_s:
            self._note_budget()
            return [], True
        self._asked_astroid = True
        start = time.process_time()
        found: list[Any] = []
        remaining = self.inference_budget_s - self._inference_spent_s
        try:
            # A hard limit where signals work (CLI, workers): one call cannot outlive the budget.
            with hard_deadline(remaining, "inference"):
                for value in values():
                    if value is None or value.__class__.__name__ == "UninferableBase":
                        uninferable = True
                        continue
                    found.append(value)
                    if len(found) >= limit:
                        break
        except DeadlineExceeded as exc:
            if exc.kind != "inference":
                raise  # the engine's per-file limit: let it unwind the whole file
            self._inference_spent_s = self.inference_budget_s
            self._note_budget()
            return [], True
        except Exception:  # noqa: BLE001 - astroid raises many kinds on odd code; unknown is the answer
            return [], True
        finally:
            self._inference_spent_s += time.process_time() - start
        return found, uninferable

    def infer_one(self, node: ast.AST) -> Any:
        """The single inferred value, or None when ambiguous or partly unknown (pylint's
        safe_infer): a name assigned in two branches, one uninferable, is not "one value"."""
        values, uninferable = self._infer(node, limit=2)
        return values[0] if len(values) == 1 and not uninferable else None

    def const_value(self, node: ast.AST | None, default: Any = _NO_VALUE) -> Any:
        """A literal's value (Constant, or a name bound once to one); ``default`` otherwise.

        Names are answered from their binding when it is syntactically plain (``N = 64``,
        a parameter, a loop variable); only a name bound to a computed expression
        (``N = 2 * 32``, ``N = cfg.N``, ``from .consts import N``) asks astroid.
        """
        literal = _literal(node)
        if literal is not _NO_VALUE:
            return literal
        if not isinstance(node, ast.Name):
            return default
        _scope, bindings = syntax.lookup(node)
        if len(bindings) != 1:
            return default  # unbound (a builtin) or several candidates: not one value
        binding = bindings[0]
        if isinstance(binding, ast.Name):
            owner = binding.parent  # type: ignore[attr-defined]
            if isinstance(owner, (ast.Assign, ast.AnnAssign)) and owner.value is not None:
                literal = _literal(owner.value)
                if literal is not _NO_VALUE:
                    return literal
            elif not isinstance(owner, (ast.Tuple, ast.List)):
                return default  # loop, with, walrus and other targets: not one value
        elif not isinstance(binding, ast.ImportFrom):
            return default  # parameters, defs, classes, imports of modules
        from astroid import nodes as anodes

        value = self.infer_one(node)
        if isinstance(value, anodes.Const):
            return value.value
        return default

    def _note_budget(self) -> None:
        if not self._budget_note_added:
            self._budget_note_added = True
            self.notes.append(
                f"inference budget of {self.inference_budget_s:g} s exhausted; "
                "the remaining checks in this file used syntax only"
            )

    def ast_definition(self, value: Any) -> ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | None:
        """The ``ast`` node of a function/class astroid inferred (from this file, another
        project file, or any source file on disk)."""
        root = value.root()
        module_name = getattr(root, "name", "")
        if module_name == self.module_name:
            tree: ast.AST | None = self.tree
        else:
            tree = self.project.ast_tree(module_name, getattr(root, "file", None))
        if tree is None:
            return None
        line = value.fromlineno
        for node in syntax.nodes_of_class(tree, _DEF_TYPES):
            if node.lineno == line and node.name == value.name:
                return node
        return None

    # ------------------------------------------------------------------ Warp shapes
    def kernel_decorator(
        self, funcdef: ast.AST, kinds: tuple[str, ...] = ("kernel",)
    ) -> KernelDecorator | None:
        """The Warp decorator of ``funcdef`` whose kind is in ``kinds``, if any."""
        for decorator in getattr(funcdef, "decorator_list", ()):
            call = decorator if isinstance(decorator, ast.Call) else None
            target = call.func if call is not None else decorator
            name = self.warp_name(target)
            if name is None:
                continue
            kind = name.rsplit(".", 1)[-1]
            if kind in kinds:
                return KernelDecorator(funcdef, decorator, call, kind)  # type: ignore[arg-type]
        return None

    def kernel_decorators(self) -> list[KernelDecorator]:
        """Every ``@wp.kernel`` in the file, in source order (cached per file)."""
        cached = self.state.get("__kernels__")
        if cached is None:
            cached = [
                dec
                for func in syntax.nodes_of_class(self.tree, syntax.FUNCTION_TYPES)
                if func.decorator_list and (dec := self.kernel_decorator(func)) is not None
            ]
            self.state["__kernels__"] = cached
        return cached

    def keyword(self, call: ast.Call, name: str, position: int | None = None) -> ast.expr | None:
        """A call argument by keyword, or by position when ``position`` is given."""
        for kw in call.keywords:
            if kw.arg == name:
                return kw.value
        if position is not None and len(call.args) > position:
            arg = call.args[position]
            if not isinstance(arg, ast.Starred):
                return arg
        return None

    def version_at_most(self, major: int, minor: int) -> bool:
        """True when the target Warp release may be ``major.minor`` or older."""
        if self.target_warp_version is None:
            return False
        return tuple(self.target_warp_version[:2]) <= (major, minor)


def warp_capable_names(tree: ast.AST) -> frozenset[str]:
    """Names of a module some binding of which could resolve to Warp: bound by an ``import
    warp...``, by any from-import (warp's names, re-exports), or by an assignment of a
    Name/Attribute (an alias). A superset: the bindings decide."""
    capable: set[str] = set()
    for node in syntax.nodes_of_class(tree, (ast.Import, ast.ImportFrom, ast.Assign)):
        if isinstance(node, ast.Import):
            capable.update(
                alias.asname or alias.name.split(".")[0]
                for alias in node.names
                if alias.name == "warp" or alias.name.startswith("warp.")
            )
        elif isinstance(node, ast.ImportFrom):
            capable.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node.value, (ast.Name, ast.Attribute)):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    capable.add(target.id)
                else:  # ``a, b = wp, np``
                    capable.update(t.id for t in syntax.nodes_of_class(target, ast.Name))
    return frozenset(capable)


def _qname_of(values: list[Any]) -> str | None:
    """The qualified name of the first module, function or class among inferred values."""
    from astroid import nodes as anodes

    for value in values:
        if isinstance(value, anodes.Module):
            return value.name
        if isinstance(value, (anodes.FunctionDef, anodes.ClassDef)):
            return value.qname()
    return None


def _literal(node: ast.AST | None) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        if isinstance(node.operand.value, (int, float)) and not isinstance(node.operand.value, bool):
            return -node.operand.value
    return _NO_VALUE
