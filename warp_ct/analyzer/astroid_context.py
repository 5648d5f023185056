"""What a rule sees while checking one file: the tree, Warp name resolution, reporting, edits."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from astroid import nodes
from astroid.exceptions import AstroidError

from warp_ct.analyzer.deadline import DeadlineExceeded, hard_deadline
from warp_ct.analyzer.model import Applicability, Finding, Fix, Range, Severity, TextEdit
from warp_ct.analyzer.positions import LineIndex

if TYPE_CHECKING:
    from warp_ct.analyzer.project import Project
    from warp_ct.analyzer.rules.base import Rule

# Older Warp re-exported its API from these modules; user code still imports from them.
_WARP_ALIAS_PREFIXES = ("warp._src.context.", "warp.context.", "warp._src.types.", "warp._src.")

# Inference is where pathological files hide: cap the CPU time one file may spend in it.
DEFAULT_INFERENCE_BUDGET_S = 2.0

_NO_VALUE = object()


def normalize_warp_name(name: str) -> str:
    for prefix in _WARP_ALIAS_PREFIXES:
        if name.startswith(prefix):
            rest = name[len(prefix) :]
            return "warp." + rest
    return name


def split_dotted(node: nodes.NodeNG) -> tuple[nodes.Name, list[str]] | None:
    """``a.b.c`` -> (Name ``a``, ["b", "c"]); None unless a plain Name/Attribute chain."""
    attrs: list[str] = []
    base = node
    while isinstance(base, nodes.Attribute):
        attrs.append(base.attrname)
        base = base.expr
    if not isinstance(base, nodes.Name):
        return None
    return base, attrs[::-1]


def enclosing_functions(node: nodes.NodeNG) -> list[nodes.FunctionDef]:
    """Functions around ``node``, innermost first (lambdas excluded)."""
    found = []
    current = node.parent
    while current is not None and not isinstance(current, nodes.Module):
        if isinstance(current, nodes.FunctionDef):
            found.append(current)
        current = current.parent
    return found


def imported_qname(node: nodes.NodeNG) -> str | None:
    """The dotted name a Name/Attribute denotes through plain imports (no inference).

    ``functools.cache`` with ``import functools``, ``cache`` with ``from functools import
    cache``, ``ft.lru_cache`` with ``import functools as ft``. None when not an import.
    """
    split = split_dotted(node)
    if split is None:
        return None
    base, attrs = split
    try:
        _scope, bindings = base.lookup(base.name)
    except AstroidError:
        return None
    if not bindings:
        return None
    binding = bindings[-1]
    root: str | None = None
    if isinstance(binding, nodes.Import):
        for modname, alias in binding.names:
            if alias == base.name:
                root = modname
            elif alias is None and modname.split(".")[0] == base.name:
                root = base.name
    elif isinstance(binding, nodes.ImportFrom) and not binding.level:
        for original, alias in binding.names:
            if (alias or original) == base.name:
                root = f"{binding.modname}.{original}"
    if root is None:
        return None
    return ".".join([root, *attrs])


@dataclass(frozen=True)
class KernelDecorator:
    """A ``@wp.kernel`` / ``@wp.kernel(...)`` (or func/struct) decorator on a function."""

    funcdef: nodes.FunctionDef
    decorator: nodes.NodeNG
    call: nodes.Call | None
    kind: str  # "kernel", "func", "struct"

    @property
    def keywords(self) -> dict[str, nodes.NodeNG]:
        if self.call is None:
            return {}
        return {kw.arg: kw.value for kw in (self.call.keywords or []) if kw.arg}

    def keyword_const(self, name: str, default: Any = None) -> Any:
        value = self.keywords.get(name)
        if isinstance(value, nodes.Const):
            return value.value
        return default

    @property
    def is_unique(self) -> bool:
        return self.keyword_const("module") == "unique"


@dataclass
class FileContext:
    path: str
    text: str
    module_name: str
    tree: nodes.Module
    project: "Project"
    target_warp_version: tuple[int, ...] | None = None
    inference_budget_s: float = DEFAULT_INFERENCE_BUDGET_S
    index: LineIndex = field(init=False)
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    current_rule: "Rule | None" = None
    # Per-file scratch space for rules that collect before deciding (keyed by rule code).
    state: dict[str, Any] = field(default_factory=dict)
    # id(node) -> (node, answer). The node is kept so that its id cannot be reused by a
    # temporary node (a rule's view object) and answer for it: that made findings flaky.
    _name_cache: dict[int, tuple[Any, str | None]] = field(default_factory=dict)
    _inference_spent_s: float = 0.0
    _budget_note_added: bool = False

    def __post_init__(self) -> None:
        self.index = LineIndex(self.text)

    # ------------------------------------------------------------------ reporting
    def report(
        self,
        node_or_range: nodes.NodeNG | Range,
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
    def node_range(self, node: nodes.NodeNG) -> Range:
        """The node's span in characters. Functions/classes: the ``def name`` head only."""
        if isinstance(node, (nodes.FunctionDef, nodes.ClassDef)) and node.position is not None:
            pos = node.position
            return self._range(pos.lineno, pos.col_offset, pos.end_lineno, pos.end_col_offset)
        lineno = node.lineno or 1
        col = node.col_offset or 0
        end_lineno = node.end_lineno or lineno
        end_col = node.end_col_offset if node.end_col_offset is not None else col
        return self._range(lineno, col, end_lineno, end_col)

    def _range(self, lineno: int, col: int, end_lineno: int, end_col: int) -> Range:
        start_line, end_line = lineno - 1, end_lineno - 1
        return Range.from_coords(
            start_line,
            self.index.char_from_byte(start_line, col),
            end_line,
            self.index.char_from_byte(end_line, end_col),
        )

    def source_of(self, node: nodes.NodeNG) -> str:
        """The exact source text of a node (as written, unlike ``as_string()``)."""
        rng = self.node_range(node) if not isinstance(node, (nodes.FunctionDef, nodes.ClassDef)) else None
        if rng is None:
            return node.as_string()
        start = self.index.offset(rng.start.line, rng.start.character)
        end = self.index.offset(rng.end.line, rng.end.character)
        return self.text[start:end]

    def line_indent(self, line0: int) -> str:
        line = self.index.line_text(line0)
        return line[: len(line) - len(line.lstrip(" \t"))]

    # ------------------------------------------------------------------ edits
    def replace_node(self, node: nodes.NodeNG, new_text: str) -> TextEdit:
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
    def warp_name(self, node: nodes.NodeNG | None) -> str | None:
        """The Warp API a Name/Attribute denotes, e.g. ``"warp.kernel"``, ``"warp.config.mode"``.

        Resolution is syntactic through the import statements of the enclosing scopes; a
        name imported from a project module (a re-export) is followed with astroid
        inference. Returns None for anything that is not (provably) Warp.
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

    def call_name(self, call: nodes.NodeNG) -> str | None:
        """``warp_name`` of a call's callee (None when ``call`` is not a Call)."""
        if not isinstance(call, nodes.Call):
            return None
        return self.warp_name(call.func)

    def _resolve_warp_name(self, node: nodes.NodeNG, depth: int) -> str | None:
        if depth > 4:
            return None
        split = split_dotted(node)
        if split is None:
            return None
        base, attrs = split
        root = self._resolve_name_binding(base, depth)
        if root is None:
            return None
        full = ".".join([root, *attrs])
        if full == "warp" or full.startswith("warp."):
            return normalize_warp_name(full)
        return None

    def _resolve_name_binding(self, name: nodes.Name, depth: int) -> str | None:
        try:
            _scope, bindings = name.lookup(name.name)
        except AstroidError:
            return None
        if not bindings:
            return None
        binding = bindings[-1]
        if isinstance(binding, nodes.Import):
            for modname, alias in binding.names:
                if alias == name.name:
                    return modname
                if alias is None and modname.split(".")[0] == name.name:
                    return name.name
            return None
        if isinstance(binding, nodes.ImportFrom):
            modname = binding.modname or ""
            for original, alias in binding.names:
                if (alias or original) != name.name:
                    continue
                if binding.level in (None, 0) and (modname == "warp" or modname.startswith("warp.")):
                    return f"{modname}.{original}"
                if len(bindings) != 1:
                    return self._infer_warp_qname(name)
                return self._imported_qname(binding, original, name)
            return None
        if isinstance(binding, nodes.AssignName):
            assign = binding.parent
            # ``kernel = wp.kernel`` / ``cfg = wp.config``: follow one simple alias.
            if isinstance(assign, nodes.Assign) and len(assign.targets) == 1 and assign.targets[0] is binding:
                if isinstance(assign.value, (nodes.Name, nodes.Attribute)):
                    return self._resolve_warp_name(assign.value, depth + 1)
        return None

    def _imported_qname(self, binding: nodes.ImportFrom, original: str, name: nodes.Name) -> str | None:
        """``_infer_warp_qname`` of a name bound only by ``from X import original``: its value
        depends on module X alone, so the answer is shared by every file of the project
        (many files import the same names from the same modules)."""
        try:
            absolute = binding.root().relative_to_absolute_name(binding.modname or "", binding.level)
        except Exception:  # noqa: BLE001 - too many dots and the like: no sharing
            return self._infer_warp_qname(name)
        cache = self.project.__dict__.setdefault("_imported_qnames", {})
        key = (absolute, original)
        if key in cache:
            return cache[key]
        result = self._infer_warp_qname(name)
        if not self._budget_note_added and self._inference_spent_s < self.inference_budget_s:
            cache[key] = result  # never share an answer the budget cut short
        return result

    def _infer_warp_qname(self, node: nodes.NodeNG) -> str | None:
        for value in self.infer(node):
            if isinstance(value, nodes.Module):
                return value.name
            if isinstance(value, (nodes.FunctionDef, nodes.ClassDef)):
                return value.qname()
        return None

    # ------------------------------------------------------------------ inference
    def infer(self, node: nodes.NodeNG, limit: int = 8) -> list[Any]:
        """Inferred values of ``node`` (uninferable ones dropped), within the file's budget."""
        return self._infer(node, limit)[0]

    def _infer(self, node: nodes.NodeNG, limit: int) -> tuple[list[Any], bool]:
        """(inferred values, whether some branch was uninferable)."""
        uninferable = False
        if self._inference_spent_s >= self.inference_budget_s:
            self._note_budget()
            return [], True
        start = time.process_time()
        values: list[Any] = []
        remaining = self.inference_budget_s - self._inference_spent_s
        try:
            # A hard limit where signals work (CLI, workers): one call cannot outlive the budget.
            with hard_deadline(remaining, "inference"):
                for value in node.infer():
                    if value.__class__.__name__ == "UninferableBase" or value is None:
                        uninferable = True
                        continue
                    values.append(value)
                    if len(values) >= limit:
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
        return values, uninferable

    def infer_one(self, node: nodes.NodeNG) -> Any:
        """The single inferred value, or None when ambiguous or partly unknown (pylint's
        safe_infer): a name assigned in two branches, one uninferable, is not "one value"."""
        values, uninferable = self._infer(node, limit=2)
        return values[0] if len(values) == 1 and not uninferable else None

    def const_value(self, node: nodes.NodeNG | None, default: Any = _NO_VALUE) -> Any:
        """A literal's value (Const, or a name bound once to a Const); ``default`` otherwise."""
        if isinstance(node, nodes.Const):
            return node.value
        if isinstance(node, (nodes.UnaryOp,)) and node.op == "-" and isinstance(node.operand, nodes.Const):
            if isinstance(node.operand.value, (int, float)):
                return -node.operand.value
        if isinstance(node, nodes.Name):
            value = self.infer_one(node)
            if isinstance(value, nodes.Const):
                return value.value
        return default

    def _note_budget(self) -> None:
        if not self._budget_note_added:
            self._budget_note_added = True
            self.notes.append(
                f"inference budget of {self.inference_budget_s:g} s exhausted; "
                "the remaining checks in this file used syntax only"
            )

    # ------------------------------------------------------------------ Warp shapes
    def kernel_decorator(self, funcdef: nodes.FunctionDef, kinds: tuple[str, ...] = ("kernel",)) -> KernelDecorator | None:
        """The Warp decorator of ``funcdef`` whose kind is in ``kinds``, if any."""
        if not funcdef.decorators:
            return None
        for decorator in funcdef.decorators.nodes:
            call = decorator if isinstance(decorator, nodes.Call) else None
            target = call.func if call is not None else decorator
            name = self.warp_name(target)
            if name is None:
                continue
            kind = name.rsplit(".", 1)[-1]
            if kind in kinds:
                return KernelDecorator(funcdef, decorator, call, kind)
        return None

    def kernel_decorators(self) -> list[KernelDecorator]:
        """Every ``@wp.kernel`` in the file, in source order (cached per file)."""
        cached = self.state.get("__kernels__")
        if cached is None:
            cached = [
                dec
                for func in self.tree.nodes_of_class(nodes.FunctionDef)
                if (dec := self.kernel_decorator(func)) is not None
            ]
            self.state["__kernels__"] = cached
        return cached

    def keyword(self, call: nodes.Call, name: str, position: int | None = None) -> nodes.NodeNG | None:
        """A call argument by keyword, or by position when ``position`` is given."""
        for kw in call.keywords or []:
            if kw.arg == name:
                return kw.value
        if position is not None and call.args and len(call.args) > position:
            arg = call.args[position]
            if not isinstance(arg, nodes.Starred):
                return arg
        return None

    def version_at_most(self, major: int, minor: int) -> bool:
        """True when the target Warp release may be ``major.minor`` or older."""
        if self.target_warp_version is None:
            return False
        return tuple(self.target_warp_version[:2]) <= (major, minor)
