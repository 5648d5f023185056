"""Straight-line flows and the module loads in them (WCT002, WCT006, WCT007).

A flow is the module body or the body of one Python function, read top to bottom: nested
functions, lambdas and (inside functions) class bodies run later or elsewhere, so they are
flows of their own or none; a nested def's decorators and defaults run in the enclosing
flow. Within a flow, a call that loads a Warp module (``wp.launch`` of one of its kernels,
``wp.force_load()``, ``wp.load_module``) makes every later change to that module (new
options, a new kernel) cost a second build.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from warp_ct.analyzer import syntax, textscan

if TYPE_CHECKING:
    from warp_ct.analyzer.context import FileContext
    from warp_ct.analyzer.query import QueryContext

# Calls that load (build, on a cold cache) the module of the kernel they get: argument position.
KERNEL_LOADERS = {"warp.launch": 0, "warp.launch_tiled": 0, "warp.get_suggested_block_size": 0}
ANY_MODULE = "*"  # wp.force_load(): every module that exists so far
LOADER_LABELS = frozenset({"launch", "launch_tiled", "get_suggested_block_size", "force_load", "load_module"})
_WARP_CODE = ("kernel", "func", "func_native", "func_grad", "func_replay")
# The text of a load call (a callee whose last name is in LOADER_LABELS, then its
# parenthesis), for the project gates; every match starts with one of LOAD_WORDS.
LOAD_CALL_RE = re.compile(r"\b(launch|launch_tiled|force_load|load_module|get_suggested_block_size)\s*\(")
LOAD_WORDS = ("launch", "force_load", "load_module", "get_suggested_block_size")


@lru_cache(maxsize=4)  # the gates of several rules read the same file's text in a row
def load_calls(text: str) -> tuple[tuple[int, int, str], ...]:
    """(start, end, callee label) of every load call's text (``LOAD_CALL_RE``) in ``text``;
    ``end`` is just after the opening parenthesis."""
    return tuple((m.start(), m.end(), m.group(1)) for m in textscan.finditer_at(LOAD_CALL_RE, LOAD_WORDS, text))


def launch_calls(text: str) -> list[tuple[int, int, str]]:
    """``load_calls`` of ``launch(`` / ``launch_tiled(``."""
    return [call for call in load_calls(text) if call[2] in ("launch", "launch_tiled")]

_FLOWS_STATE = "__flows__"
_FLOW_ITEMS = (ast.Call, ast.Assign, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_OUTSIDE = object()  # owner of code that is in no flow (a lambda body, an annotation, ...)


def callee_label(call: ast.Call) -> str | None:
    """The last name of a call's callee (``wp.launch`` -> ``launch``): a cheap pre-filter."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def is_warp_code(func: ast.AST, ctx: "FileContext") -> bool:
    """A ``@wp.kernel``/``@wp.func``... body: compiled by Warp, not a Python flow."""
    return ctx.kernel_decorator(func, kinds=_WARP_CODE) is not None


# ---------------------------------------------------------------------- flows
@dataclass
class FlowIndex:
    """The module and every function (in source order) with the nodes of its flow that
    the flow rules look at (calls, assignments, defs, classes), in flow order."""

    flows: list[tuple[ast.AST, list[ast.AST]]]
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef]  # every def of the file, source order


def flow_index(ctx: "FileContext") -> FlowIndex:
    """For the module and each Python function, the Call, Assign, FunctionDef and ClassDef
    nodes of its flow in pre-order (a node before its children; a dict's keys before its
    values). Read off the tree's per-class node lists, each node's flow found through its
    parents (remembered per node, so each parent is asked once); cached in ``ctx.state``
    for the other flow rules of the file."""
    cached = ctx.state.get(_FLOWS_STATE)
    if cached is not None:
        return cached
    tree = ctx.tree
    functions = list(syntax.nodes_of_class(tree, syntax.FUNCTION_TYPES))
    flows: list[tuple[ast.AST, list[ast.AST]]] = [(tree, [])] + [(func, []) for func in functions]
    items_of = {id(owner): items for owner, items in flows}
    owners: dict[int, Any] = {id(tree): tree}
    for node in syntax.nodes_of_class(tree, _FLOW_ITEMS):
        owner = _owner(node, owners, tree)
        if owner is not _OUTSIDE:
            items_of[id(owner)].append(node)
    index = FlowIndex(flows, functions)  # type: ignore[arg-type]
    ctx.state[_FLOWS_STATE] = index
    return index


def _owner(node: ast.AST, owners: dict[int, Any], tree: ast.AST) -> Any:
    """The flow (module or function) that evaluates ``node``, or ``_OUTSIDE``; ``owners``
    remembers the answer for ``node`` and every ancestor asked on the way."""
    path = []
    current = node
    owner = owners.get(id(current))
    while owner is None:
        path.append(current)
        current = current.parent  # type: ignore[attr-defined]
        owner = owners.get(id(current))
    # ``current`` is known; walk back down, deciding each child from its parent.
    for child in reversed(path):
        owner = _child_owner(current, child, owner, tree)
        owners[id(child)] = owner
        current = child
    return owner


def _child_owner(parent: ast.AST, child: ast.AST, parent_owner: Any, tree: ast.AST) -> Any:
    """Which flow evaluates ``child``, given its parent and the flow evaluating the parent.

    A def's body is its own flow; its decorators and defaults run where the def does, its
    annotations are not followed. A lambda's body runs later (no flow); a class body runs
    where the class statement does at module level, and is followed nowhere inside a
    function (it would run once per call, but is not a flow of its own either).
    """
    cls = parent.__class__
    is_def = cls is ast.FunctionDef or cls is ast.AsyncFunctionDef
    if is_def and isinstance(child, ast.stmt):
        return parent  # every def has a flow, wherever it sits
    if parent_owner is _OUTSIDE:
        return _OUTSIDE
    if is_def:
        return parent_owner if child is parent.args or child in parent.decorator_list else _OUTSIDE  # type: ignore[attr-defined]
    if cls is ast.arguments:
        return parent_owner if any(child is default for default in parent.defaults) else _OUTSIDE  # type: ignore[attr-defined]
    if cls is ast.Lambda:
        return parent_owner if child is parent.args else _OUTSIDE  # type: ignore[attr-defined]
    if cls is ast.ClassDef:
        return parent_owner if parent_owner is tree and isinstance(child, ast.stmt) else _OUTSIDE
    return parent_owner


_NOT_ALWAYS_RUN = (ast.ExceptHandler, ast.Lambda, *syntax.FUNCTION_TYPES, *syntax.COMPREHENSION_TYPES)


def definitely_runs(node: ast.AST, owner: ast.AST) -> bool:
    """``node`` runs whenever ``owner``'s body reaches it: no branch on the way.

    Loop bodies count as running (a launch in a loop before a change after it ran at
    least once in any realistic program); if/else, except, and short-circuit parts do not.
    """
    child = node
    current = getattr(node, "parent", None)
    while current is not None and current is not owner:
        if isinstance(current, (ast.If, ast.IfExp)) and child is not current.test:
            return False
        if isinstance(current, ast.BoolOp) and child is not current.values[0]:
            return False
        if isinstance(current, _NOT_ALWAYS_RUN):
            return False
        if isinstance(current, (ast.For, ast.AsyncFor, ast.While)) and any(s is child for s in current.orelse):
            return False
        child = current
        current = getattr(current, "parent", None)
    return current is owner


def precedes(a: ast.AST, b: ast.AST) -> bool:
    return (a.lineno, a.col_offset or 0) < (b.lineno, b.col_offset or 0)  # type: ignore[attr-defined]


# ---------------------------------------------------------------------- loads
@dataclass(frozen=True)
class Load:
    node: ast.Call
    module: str  # Warp module name (the Python module's name), or ANY_MODULE
    what: str  # for messages: "`step` was launched on line 9", "`wp.force_load()` loaded every module ..."


def loads_in(ctx: "FileContext", owner: ast.AST, items: list[ast.AST]) -> list[Load]:
    """Calls of ``owner``'s flow (``items``, from ``flow_index``) that certainly load a
    known module."""
    found: list[Load] = []
    for node in items:
        if type(node) is not ast.Call or callee_label(node) not in LOADER_LABELS:
            continue
        name = ctx.call_name(node)
        if name is None:
            continue
        if name in KERNEL_LOADERS:
            kernel = ctx.keyword(node, "kernel", KERNEL_LOADERS[name])
            module = kernel_module(ctx, kernel)
            if module is None:
                continue
            kind = "block_size_query" if name.endswith("block_size") else "launch"
            found.append(Load(node, module, what_loaded(kind, ctx.source_of(kernel), node.lineno)))
        elif name == "warp.force_load":
            if ctx.keyword(node, "modules", 1) is not None:
                continue
            found.append(Load(node, ANY_MODULE, what_loaded("force_load", None, node.lineno)))
        elif name == "warp.load_module":
            module = module_ref(ctx, ctx.keyword(node, "module", 0))
            if module is None:
                continue
            found.append(Load(node, module, what_loaded("load_module", None, node.lineno)))
    return [load for load in found if definitely_runs(load.node, owner)]


def what_loaded(kind: str, kernel: str | None, line: int) -> str:
    """A message's words for a load: "`k` was launched on line 12". ``kind`` as in
    ``LaunchFact.kind``; ``kernel``: the kernel expression's source (None: "a kernel")."""
    if kind == "force_load":
        return f"`wp.force_load()` loaded every module on line {line}"
    if kind == "load_module":
        return f"`wp.load_module` loaded it on line {line}"
    verb = "queried for its block size" if kind == "block_size_query" else "launched"
    return f"{f'`{kernel}`' if kernel is not None else 'a kernel'} was {verb} on line {line}"


def loaded_before(ctx: "FileContext", loads: list[Load], module: str, node: ast.AST) -> Load | None:
    """The first of ``loads`` (of one flow) that built ``module`` before ``node`` runs."""
    for load in loads:
        if load.module not in (module, ANY_MODULE) or not precedes(load.node, node) or _inside(node, load.node):
            continue
        if load.module == ANY_MODULE and module == ctx.module_name:
            # wp.force_load() only built this file's module if it had Warp code by then.
            if not _file_code_before(ctx, load.node):
                continue
        return load
    return None


def _file_code_before(ctx: "FileContext", node: ast.AST) -> bool:
    line = node.lineno  # type: ignore[attr-defined]
    for func in flow_index(ctx).functions:
        if func.lineno >= line:
            continue
        dec = ctx.kernel_decorator(func, kinds=("kernel", "func", "func_native"))
        if dec is not None and not (dec.kind == "kernel" and "module" in dec.keywords):
            return True
    return False


def _inside(node: ast.AST, ancestor: ast.AST) -> bool:
    return node is ancestor or any(a is ancestor for a in syntax.ancestors(node))


def describe(ctx: "FileContext | QueryContext", module: str) -> str:
    return "this file's Warp module" if module == ctx.module_name else f"the Warp module `{module}`"


# ---------------------------------------------------------------------- modules
def kernel_module(ctx: "FileContext", expr: ast.AST | None) -> str | None:
    """The Warp module a kernel expression belongs to; None when unknown or the kernel has
    a module of its own."""
    if isinstance(expr, ast.Name):
        _scope, bindings = syntax.lookup(expr)
        if len(bindings) == 1 and isinstance(bindings[0], syntax.FUNCTION_TYPES):
            return _module_of_kernel_def(ctx, bindings[0], ctx.module_name)
        if bindings and not all(isinstance(b, (ast.ImportFrom, ast.Import)) for b in bindings):
            return None
    elif not isinstance(expr, ast.Attribute):
        return None
    from astroid import nodes as anodes

    values = ctx.infer(expr, limit=2)
    if len(values) == 1 and isinstance(values[0], anodes.FunctionDef):
        return _module_of_inferred_def(ctx, values[0])
    return None


def _module_of_kernel_def(ctx: "FileContext", func: ast.AST | None, module: str) -> str | None:
    """``module`` if ``func`` is a kernel of it (not one with ``module=...`` of its own)."""
    dec = ctx.kernel_decorator(func) if func is not None else None
    if dec is None or "module" in dec.keywords:
        return None  # not a kernel, or module="unique"/custom: its own module
    return module


def _module_of_inferred_def(ctx: "FileContext", func: Any) -> str | None:
    """``_module_of_kernel_def`` of a function astroid inferred, in this file or another
    (whose decorators ``ctx`` resolves in that file's own tree)."""
    root = func.root()
    if root is ctx.astroid_tree():
        module = ctx.module_name
    else:
        summary = ctx.project.files.get(root.file) if root.file else None
        module = summary.module_name if summary is not None else root.name
    return _module_of_kernel_def(ctx, ctx.ast_definition(func), module)


def module_ref(ctx: "FileContext", node: ast.AST | None) -> str | None:
    """The module a ``module=`` argument / ``wp.get_module(...)`` argument names."""
    if node is None:
        return ctx.module_name
    if isinstance(node, ast.Constant):
        if node.value is None:
            return ctx.module_name
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.Name) and node.id == "__name__":
        return ctx.module_name
    if isinstance(node, ast.Call) and ctx.call_name(node) == "warp.get_module":
        return module_ref(ctx, ctx.keyword(node, "name", 0))  # no argument: this module, like None
    if isinstance(node, ast.Attribute) and node.attr == "__name__":
        return _inferred_module_name(ctx, node.value)
    if isinstance(node, (ast.Name, ast.Attribute)):
        return _inferred_module_name(ctx, node)
    return None


def _inferred_module_name(ctx: "FileContext", node: ast.AST) -> str | None:
    if not _may_denote_module(node):
        return None
    from astroid import nodes as anodes

    values = ctx.infer(node, limit=2)
    if len(values) == 1 and isinstance(values[0], anodes.Module):
        module = values[0]
        return ctx.module_name if module is ctx.astroid_tree() else module.name
    return None


def _may_denote_module(node: ast.AST, depth: int = 0) -> bool:
    """Can this Name/Attribute chain be a module object? Only when its base name comes from
    an import (directly or through plain aliases); parameters, ``sys.modules[...]`` results
    and attributes of other values are run-time values, not worth building astroid's tree.
    Warp's own submodules never resolve either: inference sees a stub of ``warp``."""
    split = syntax.split_dotted(node)
    if split is None or depth > 4:
        return False
    base, attrs = split
    _scope, bindings = syntax.lookup(base)
    for binding in bindings:
        if isinstance(binding, ast.Import):
            bound = [a.name for a in binding.names if (a.asname or a.name.split(".")[0]) == base.id]
            if not all(name == "warp" or name.startswith("warp.") for name in bound):
                return True
        if isinstance(binding, ast.ImportFrom):
            return True
        owner = getattr(binding, "parent", None)
        if isinstance(binding, ast.Name) and isinstance(owner, ast.Assign) and isinstance(owner.value, (ast.Name, ast.Attribute)):
            if _may_denote_module(owner.value, depth + 1):
                return True
    return False
