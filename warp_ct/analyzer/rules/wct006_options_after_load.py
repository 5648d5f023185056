"""WCT006 options-after-load (and the straight-line flow helpers WCT007 shares)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Iterator

from warp_ct.analyzer import syntax
from warp_ct.analyzer.context import FileContext
from warp_ct.analyzer.model import Severity
from warp_ct.analyzer.rules.base import Rule

# Calls that load (build, on a cold cache) the module of the kernel they get.
KERNEL_LOADERS = {"warp.launch": 0, "warp.launch_tiled": 0, "warp.get_suggested_block_size": 0}
ANY_MODULE = "*"  # wp.force_load(): every module that exists so far
_LOADER_LABELS = frozenset({"launch", "launch_tiled", "get_suggested_block_size", "force_load", "load_module"})

# The shared helpers below take stdlib ``ast`` nodes with the ``ast`` FileContext (this rule);
# given astroid nodes and the astroid FileContext they run the ``_astroid_*`` twins at the end
# of the file, for the rules that still check astroid trees (WCT002, WCT007). Delete those
# once every caller is ported.


def _is_ast(node: Any) -> bool:
    return isinstance(node, ast.AST)


def _line(node: Any) -> int:
    """The node's first line: ``ast`` lineno, astroid ``fromlineno`` (the ``def`` line of a
    decorated function in both)."""
    return node.lineno if isinstance(node, ast.AST) else node.fromlineno


def callee_label(call: Any) -> str | None:
    """The last name of a call's callee (``wp.launch`` -> ``launch``): a cheap pre-filter."""
    if not _is_ast(call):
        return _astroid_callee_label(call)
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


@dataclass(frozen=True)
class Load:
    node: Any  # the loading ast.Call (astroid Call for the astroid callers)
    module: str  # Warp module name (the Python module's name), or ANY_MODULE
    what: str  # for messages: "`step` was launched", "modules were force-loaded"

    @property
    def line(self) -> int:
        return _line(self.node)


# ---------------------------------------------------------------------- flows
def flows(tree: Any) -> Iterator[Any]:
    """The module and every Python function whose body runs top to bottom (not Warp code)."""
    if not _is_ast(tree):
        yield from _astroid_flows(tree)
        return
    yield tree
    yield from syntax.nodes_of_class(tree, syntax.FUNCTION_TYPES)


def is_warp_code(func: Any, ctx: Any) -> bool:
    return ctx.kernel_decorator(func, kinds=("kernel", "func", "func_native", "func_grad", "func_replay")) is not None


def flow_nodes(owner: Any) -> Iterator[Any]:
    """Nodes that run as part of ``owner``'s body: not nested functions, lambdas or
    (except at module level) class bodies. Nested defs themselves are yielded."""
    if not _is_ast(owner):
        yield from _astroid_flow_nodes(owner)
        return
    at_module = isinstance(owner, ast.Module)
    stack = list(reversed(owner.body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            # decorators and defaults run now; the body runs later
            children = [] if isinstance(node, ast.Lambda) else list(node.decorator_list)
            children.extend(d for d in node.args.defaults if d is not None)
        elif isinstance(node, ast.ClassDef):
            children = list(node.body) if at_module else []
        else:
            children = list(ast.iter_child_nodes(node))
        stack.extend(reversed(children))


_NOT_ALWAYS_RUN = (ast.ExceptHandler, ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, *syntax.COMPREHENSION_TYPES)


def definitely_runs(node: Any, owner: Any) -> bool:
    """``node`` runs whenever ``owner``'s body reaches it: no branch on the way.

    Loop bodies count as running (a launch in a loop before a change after it ran at
    least once in any realistic program); if/else, except, and short-circuit parts do not.
    """
    if not _is_ast(node):
        return _astroid_definitely_runs(node, owner)
    child = node
    current = node.parent
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
        current = current.parent
    return current is owner


def precedes(a: Any, b: Any) -> bool:
    return (_line(a), a.col_offset or 0) < (_line(b), b.col_offset or 0)


# ---------------------------------------------------------------------- modules
def kernel_module(ctx: Any, expr: Any) -> str | None:
    """The Warp module a kernel expression belongs to; None when unknown or own-module."""
    if expr is None:
        return None
    if not _is_ast(expr):
        return _astroid_kernel_module(ctx, expr)
    if isinstance(expr, ast.Name):
        _scope, bindings = syntax.lookup(expr)
        if len(bindings) == 1 and isinstance(bindings[0], syntax.FUNCTION_TYPES):
            return _module_of_kernel_def(ctx, bindings[0], ctx.module_name)
        if bindings and not all(isinstance(b, (ast.ImportFrom, ast.Import)) for b in bindings):
            return None
    if not isinstance(expr, (ast.Name, ast.Attribute)):
        return None
    from astroid import nodes as anodes

    values = ctx.infer(expr, limit=2)
    if len(values) == 1 and isinstance(values[0], anodes.FunctionDef):
        return _module_of_inferred_def(ctx, values[0])
    return None


def _module_of_kernel_def(ctx: FileContext, func: ast.AST | None, module: str) -> str | None:
    """``module`` if ``func`` is a kernel of it (not one with ``module=...`` of its own)."""
    dec = ctx.kernel_decorator(func) if func is not None else None
    if dec is None or "module" in dec.keywords:
        return None  # not a kernel, or module="unique"/custom: its own module
    return module


def _module_of_inferred_def(ctx: FileContext, func: Any) -> str | None:
    """``_module_of_kernel_def`` of a function astroid inferred (this file or another)."""
    root = func.root()
    if root is ctx.astroid_tree():
        module = ctx.module_name
    else:
        summary = ctx.project.files.get(root.file) if root.file else None
        module = summary.module_name if summary is not None else root.name
    return _module_of_kernel_def(ctx, ctx.ast_definition(func), module)


def module_ref(ctx: Any, node: Any) -> str | None:
    """The module a ``module=`` argument / ``wp.get_module(...)`` argument names."""
    if node is None:
        return ctx.module_name
    if not _is_ast(node):
        return _astroid_module_ref(ctx, node)
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


def _inferred_module_name(ctx: FileContext, node: ast.AST) -> str | None:
    from astroid import nodes as anodes

    values = ctx.infer(node, limit=2)
    if len(values) == 1 and isinstance(values[0], anodes.Module):
        module = values[0]
        return ctx.module_name if module is ctx.astroid_tree() else module.name
    return None


def loads_in(ctx: Any, owner: Any) -> list[Load]:
    """Calls in ``owner``'s flow that certainly load a known module."""
    if not _is_ast(owner):
        return _astroid_loads_in(ctx, owner)
    found: list[Load] = []
    for node in flow_nodes(owner):
        if not isinstance(node, ast.Call) or callee_label(node) not in _LOADER_LABELS:
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
            arg = ctx.keyword(node, "module", 0)
            module = module_ref(ctx, arg)
            if module is None:
                continue
            found.append(Load(node, module, f"`wp.load_module` loaded it on line {node.lineno}"))
    return [load for load in found if definitely_runs(load.node, owner)]


def loaded_before(loads: list[Load], module: str, node: Any, ctx: Any = None) -> Load | None:
    for load in loads:
        if load.module not in (module, ANY_MODULE) or not precedes(load.node, node) or _inside(node, load.node):
            continue
        if load.module == ANY_MODULE and ctx is not None and module == ctx.module_name:
            # wp.force_load() only built this file's module if it had Warp code by then.
            if not _file_code_before(ctx, load.node):
                continue
        return load
    return None


def _file_code_before(ctx: Any, node: Any) -> bool:
    if _is_ast(ctx.tree):
        functions: Iterator[Any] = syntax.nodes_of_class(ctx.tree, syntax.FUNCTION_TYPES)
    else:
        from astroid import nodes as anodes

        functions = ctx.tree.nodes_of_class(anodes.FunctionDef)
    line = _line(node)
    for func in functions:
        if _line(func) >= line:
            continue
        dec = ctx.kernel_decorator(func, kinds=("kernel", "func", "func_native"))
        if dec is not None and not (dec.kind == "kernel" and "module" in dec.keywords):
            return True
    return False


def _inside(node: Any, ancestor: Any) -> bool:
    current = node
    while current is not None:
        if current is ancestor:
            return True
        current = current.parent
    return False


def describe(ctx: Any, module: str) -> str:
    return "this file's Warp module" if module == ctx.module_name else f"the Warp module `{module}`"


# ---------------------------------------------------------------------- the rule
class OptionsAfterLoad(Rule):
    code = "WCT006"
    name = "options-after-load"
    severity = Severity.WARNING
    summary = "Module options changed after the module was launched or loaded: it is hashed again and rebuilt"
    fix_applicability = None
    uses_astroid = False
    triggers = (r"set_module_options|\.options\b",)
    docs = '''
    ## What it does
    Flags `wp.set_module_options(...)`, `wp.get_module(name).options.update(...)` and
    `wp.get_module(name).options[key] = ...` when, earlier in the same function (or the
    same module body), a kernel of that module was launched (`wp.launch`,
    `wp.launch_tiled`, `wp.get_suggested_block_size`) or the module was loaded
    (`wp.force_load`, `wp.load_module`).

    ## Why it costs compile time
    A module's options are part of its hash. Changing them after the module was built
    gives it a new hash, so the next launch generates and compiles the whole module
    again: two builds where one would do.

    ## Example
    ```python
    import warp as wp

    @wp.kernel
    def step(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = x[i] + 1.0

    def run(x):
        wp.launch(step, dim=x.shape, inputs=[x])
        wp.set_module_options({"enable_backward": False})  # WCT006
        wp.launch(step, dim=x.shape, inputs=[x])
    ```

    ## Use instead
    ```python
    import warp as wp

    wp.set_module_options({"enable_backward": False})

    @wp.kernel
    def step(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = x[i] + 1.0

    def run(x):
        wp.launch(step, dim=x.shape, inputs=[x])
        wp.launch(step, dim=x.shape, inputs=[x])
    ```

    ## When not to apply
    Changing the options of a different module is fine, and so is a change that only
    runs on some branch after a launch that is itself conditional:
    ```python
    import warp as wp

    @wp.kernel
    def step(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = x[i] + 1.0

    def run(x, warm_up):
        if warm_up:
            wp.launch(step, dim=x.shape, inputs=[x])
        wp.get_module("sim.other").options.update({"enable_backward": False})
    ```
    A sweep that deliberately builds one variant per setting (benchmarks, tests of the
    options themselves) is the exception: suppress with `# noqa: WCT006`.
    '''

    def visit_module(self, node: ast.Module, ctx: FileContext) -> None:
        for owner in flows(node):
            if isinstance(owner, syntax.FUNCTION_TYPES) and is_warp_code(owner, ctx):
                continue
            changes = list(_option_changes(ctx, owner))
            if not changes:
                continue
            loads = loads_in(ctx, owner)
            if not loads:
                continue
            saves = [n for n in flow_nodes(owner) if isinstance(n, ast.Call) and ctx.call_name(n) == "warp.get_module_options"]
            for change, module in changes:
                if _in_finally(change, owner) or any(precedes(s, change) for s in saves):
                    continue  # save ... restore: putting the old options back, not churn
                load = loaded_before(loads, module, change, ctx)
                if load is None:
                    continue
                ctx.report(
                    change,
                    f"The options of {describe(ctx, module)} change after {load.what}: the module gets a new "
                    "hash and is built again at its next launch. Set the options before the first launch.",
                )


def _in_finally(node: ast.AST, owner: ast.AST) -> bool:
    child, current = node, node.parent
    while current is not None and current is not owner:
        # ast.Try only: astroid's Try (what this checked before) is not a TryStar either.
        if isinstance(current, ast.Try) and any(s is child for s in current.finalbody):
            return True
        child, current = current, current.parent
    return False


def _option_changes(ctx: FileContext, owner: ast.AST) -> Iterator[tuple[ast.AST, str]]:
    for node in flow_nodes(owner):
        if isinstance(node, ast.Call):
            if callee_label(node) not in ("set_module_options", "update", "__setitem__", "setdefault"):
                continue
            name = ctx.call_name(node)
            if name == "warp.set_module_options":
                module = module_ref(ctx, ctx.keyword(node, "module", 1))
                if module is not None:
                    yield node, module
                continue
            # wp.get_module(X).options.update(...)
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in ("update", "__setitem__", "setdefault"):
                module = _options_owner(ctx, func.value)
                if module is not None:
                    yield node, module
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript):
                    module = _options_owner(ctx, target.value)
                    if module is not None:
                        yield node, module


def _options_owner(ctx: FileContext, expr: ast.AST) -> str | None:
    """``wp.get_module(X).options`` -> X's module name."""
    if not (isinstance(expr, ast.Attribute) and expr.attr == "options"):
        return None
    getter = expr.value
    if isinstance(getter, ast.Call) and ctx.call_name(getter) == "warp.get_module":
        return module_ref(ctx, getter)
    return None


# ---------------------------------------------------------------------- astroid twins
# The helpers above as they were on astroid trees, for WCT002 and WCT007 (astroid rules)
# until they are ported; nothing here runs for WCT006 itself.
def _astroid_callee_label(call: Any) -> str | None:
    from astroid import nodes

    func = call.func
    if isinstance(func, nodes.Attribute):
        return func.attrname
    if isinstance(func, nodes.Name):
        return func.name
    return None


def _astroid_flows(tree: Any) -> Iterator[Any]:
    from astroid import nodes

    yield tree
    for func in tree.nodes_of_class(nodes.FunctionDef):
        yield func


def _astroid_flow_nodes(owner: Any) -> Iterator[Any]:
    from astroid import nodes

    stack = list(reversed(owner.body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (nodes.FunctionDef, nodes.Lambda)):
            children = []
            if isinstance(node, nodes.FunctionDef) and node.decorators is not None:
                children.append(node.decorators)
            children.extend(d for d in (node.args.defaults or []) if d is not None)
        elif isinstance(node, nodes.ClassDef):
            children = [] if not isinstance(owner, nodes.Module) else list(node.body)
        else:
            children = list(node.get_children())
        stack.extend(reversed(children))


def _astroid_definitely_runs(node: Any, owner: Any) -> bool:
    from astroid import nodes

    child = node
    current = node.parent
    while current is not None and current is not owner:
        if isinstance(current, nodes.If) and child is not current.test:
            return False
        if isinstance(current, nodes.IfExp) and child is not current.test:
            return False
        if isinstance(current, nodes.BoolOp) and child is not current.values[0]:
            return False
        if isinstance(current, (nodes.ExceptHandler, nodes.Lambda, nodes.FunctionDef, nodes.ComprehensionScope)):
            return False
        if isinstance(current, (nodes.For, nodes.While)) and child in current.orelse:
            return False
        child = current
        current = current.parent
    return current is owner


def _astroid_kernel_module(ctx: Any, expr: Any) -> str | None:
    from astroid import nodes
    from astroid.exceptions import AstroidError

    if isinstance(expr, nodes.Name):
        try:
            _scope, bindings = expr.lookup(expr.name)
        except AstroidError:
            return None
        if len(bindings) == 1 and isinstance(bindings[0], nodes.FunctionDef):
            return _astroid_module_of_kernel_def(ctx, bindings[0])
        if bindings and not all(isinstance(b, (nodes.ImportFrom, nodes.Import)) for b in bindings):
            return None
    if not isinstance(expr, (nodes.Name, nodes.Attribute)):
        return None
    values = ctx.infer(expr, limit=2)
    if len(values) == 1 and isinstance(values[0], nodes.FunctionDef):
        return _astroid_module_of_kernel_def(ctx, values[0])
    return None


def _astroid_module_of_kernel_def(ctx: Any, func: Any) -> str | None:
    dec = ctx.kernel_decorator(func)
    if dec is None or "module" in dec.keywords:
        return None
    root = func.root()
    if root is ctx.tree:
        return ctx.module_name
    summary = ctx.project.files.get(root.file) if root.file else None
    return summary.module_name if summary is not None else root.name


def _astroid_module_ref(ctx: Any, node: Any) -> str | None:
    from astroid import nodes

    if isinstance(node, nodes.Const):
        if node.value is None:
            return ctx.module_name
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, nodes.Name) and node.name == "__name__":
        return ctx.module_name
    if isinstance(node, nodes.Call) and ctx.call_name(node) == "warp.get_module":
        return module_ref(ctx, ctx.keyword(node, "name", 0) or nodes.Const(None))
    if isinstance(node, nodes.Attribute) and node.attrname == "__name__":
        values = ctx.infer(node.expr, limit=2)
        if len(values) == 1 and isinstance(values[0], nodes.Module):
            return ctx.module_name if values[0] is ctx.tree else values[0].name
        return None
    if isinstance(node, (nodes.Name, nodes.Attribute)):
        values = ctx.infer(node, limit=2)
        if len(values) == 1 and isinstance(values[0], nodes.Module):
            return ctx.module_name if values[0] is ctx.tree else values[0].name
    return None


def _astroid_loads_in(ctx: Any, owner: Any) -> list[Load]:
    from astroid import nodes

    found: list[Load] = []
    for node in _astroid_flow_nodes(owner):
        if not isinstance(node, nodes.Call) or _astroid_callee_label(node) not in _LOADER_LABELS:
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
            found.append(Load(node, module, f"`{ctx.source_of(kernel)}` was {verb} on line {node.fromlineno}"))
        elif name == "warp.force_load":
            if ctx.keyword(node, "modules", 1) is not None:
                continue
            found.append(Load(node, ANY_MODULE, f"`wp.force_load()` loaded every module on line {node.fromlineno}"))
        elif name == "warp.load_module":
            arg = ctx.keyword(node, "module", 0)
            module = module_ref(ctx, arg)
            if module is None:
                continue
            found.append(Load(node, module, f"`wp.load_module` loaded it on line {node.fromlineno}"))
    return [load for load in found if _astroid_definitely_runs(load.node, owner)]
