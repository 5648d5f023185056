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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from warp_ct.analyzer import syntax

if TYPE_CHECKING:
    from warp_ct.analyzer.context import FileContext

# Calls that load (build, on a cold cache) the module of the kernel they get: argument position.
KERNEL_LOADERS = {"warp.launch": 0, "warp.launch_tiled": 0, "warp.get_suggested_block_size": 0}
ANY_MODULE = "*"  # wp.force_load(): every module that exists so far
LOADER_LABELS = frozenset({"launch", "launch_tiled", "get_suggested_block_size", "force_load", "load_module"})
_WARP_CODE = ("kernel", "func", "func_native", "func_grad", "func_replay")

_FLOWS_STATE = "__flows__"
# Only statements can hold a def or class: subtrees outside every flow need no walk below them.
_STATEMENT_HOLDERS = (ast.stmt, ast.ExceptHandler, ast.match_case)
# Nodes with nothing a flow looks at below them.
_LEAVES = frozenset(
    {
        ast.Name, ast.Constant, ast.Pass, ast.Break, ast.Continue, ast.Global, ast.Nonlocal, ast.Import,
        ast.ImportFrom, ast.MatchValue, ast.MatchSingleton, ast.MatchSequence, ast.MatchMapping, ast.MatchClass,
        ast.MatchStar, ast.MatchAs, ast.MatchOr,
    }
)  # fmt: skip
# Child fields per node class, last first (for a stack).
_REVERSED_FIELDS: dict[type, tuple[str, ...]] = {}


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


# ---------------------------------------------------------------------- flows (one walk)
@dataclass
class FlowIndex:
    """The module and every function (in source order) with the nodes of its flow that
    the flow rules look at (calls, assignments, defs, classes), in flow order."""

    flows: list[tuple[ast.AST, list[ast.AST]]]
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef]  # every def of the file, source order


def flow_index(ctx: "FileContext") -> FlowIndex:
    """One walk of ``ctx.tree``: for the module and each Python function, the Call, Assign,
    FunctionDef and ClassDef nodes of its flow in pre-order (a node before its children, a
    dict's keys and values interleaved as Python evaluates them). Every node is visited
    once; cached in ``ctx.state`` for the other flow rules of the file."""
    cached = ctx.state.get(_FLOWS_STATE)
    if cached is not None:
        return cached
    tree = ctx.tree
    flows: list[tuple[ast.AST, list[ast.AST]]] = []
    functions: list[ast.AST] = []
    owners: list[ast.AST] = [tree]
    Call, Assign, FunctionDef, AsyncFunctionDef, Lambda, ClassDef, Dict = (
        ast.Call, ast.Assign, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Dict
    )  # fmt: skip
    leaves, reversed_fields = _LEAVES, _REVERSED_FIELDS
    while owners:
        owner = owners.pop()
        items: list[ast.AST] = []
        flows.append((owner, items))
        hidden: list[ast.AST] = []  # class bodies in a function: outside every flow
        stack: list[ast.AST] = list(reversed(owner.body))  # type: ignore[attr-defined]
        pop, push, add = stack.pop, stack.append, items.append
        while stack:
            node = pop()
            kind = type(node)
            if kind in leaves:
                continue
            if kind is Call or kind is Assign:
                add(node)
            elif kind is FunctionDef or kind is AsyncFunctionDef:
                add(node)
                functions.append(node)
                owners.append(node)
                # decorators and defaults run now, in this flow; the body runs later
                stack.extend(reversed(node.args.defaults))
                stack.extend(reversed(node.decorator_list))
                continue
            elif kind is Lambda:
                stack.extend(reversed(node.args.defaults))
                continue
            elif kind is ClassDef:
                add(node)
                if owner is tree:
                    stack.extend(reversed(node.body))
                else:
                    hidden.extend(node.body)
                continue
            elif kind is Dict:
                for key, value in zip(reversed(node.keys), reversed(node.values)):
                    push(value)
                    if key is not None:
                        push(key)
                continue
            fields = reversed_fields.get(kind)
            if fields is None:
                fields = reversed_fields[kind] = tuple(reversed(syntax.child_fields(kind)))
            for field in fields:
                value = getattr(node, field, None)
                if value is None:
                    continue
                if type(value) is list:
                    stack.extend(reversed(value))
                else:
                    push(value)
        while hidden:
            node = hidden.pop()
            if isinstance(node, syntax.FUNCTION_TYPES):
                functions.append(node)
                owners.append(node)
            elif isinstance(node, _STATEMENT_HOLDERS):
                hidden.extend(c for c in ast.iter_child_nodes(node) if isinstance(c, _STATEMENT_HOLDERS))
    # Flows were collected depth-last; source order of their ``def`` is pre-order.
    flows.sort(key=lambda flow: (0, -1) if flow[0] is tree else (flow[0].lineno, flow[0].col_offset))  # type: ignore
    functions.sort(key=lambda func: (func.lineno, func.col_offset))  # type: ignore[attr-defined]
    index = FlowIndex(flows, functions)  # type: ignore[arg-type]
    ctx.state[_FLOWS_STATE] = index
    return index


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
            verb = "queried for its block size" if name.endswith("block_size") else "launched"
            found.append(Load(node, module, f"`{ctx.source_of(kernel)}` was {verb} on line {node.lineno}"))
        elif name == "warp.force_load":
            if ctx.keyword(node, "modules", 1) is not None:
                continue
            found.append(Load(node, ANY_MODULE, f"`wp.force_load()` loaded every module on line {node.lineno}"))
        elif name == "warp.load_module":
            module = module_ref(ctx, ctx.keyword(node, "module", 0))
            if module is None:
                continue
            found.append(Load(node, module, f"`wp.load_module` loaded it on line {node.lineno}"))
    return [load for load in found if definitely_runs(load.node, owner)]


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


def describe(ctx: "FileContext", module: str) -> str:
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
