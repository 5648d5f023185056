"""WCT007 kernel-after-load (and the one-walk flow index WCT002 shares)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator

from warp_ct.analyzer import syntax
from warp_ct.analyzer.context import FileContext, normalize_warp_name
from warp_ct.analyzer.model import Severity
from warp_ct.analyzer.rules.base import Rule

if TYPE_CHECKING:
    from warp_ct.analyzer.project import FileSummary, Project

# Text shapes for the tree gate (supersets of what the check resolves).
_LOAD_CALL_RE = re.compile(r"\b(?:launch|launch_tiled|force_load|load_module|get_suggested_block_size)\s*\(")
_DEFINITION_RE = re.compile(r"@[ \t]*[\w.]*(?:kernel|func|struct|overload)\b|overload\s*\(", re.MULTILINE)
_NESTED_DEFINITION_RE = re.compile(r"^[ \t]+@[ \t]*[\w.]*(?:kernel|func|struct|overload)\b|overload\s*\(", re.MULTILINE)
_FUNCTION_HEAD_RE = re.compile(r"(?:async[ \t]+)?def\b")

# Definitions that join the file's Warp module (and mark it modified).
_JOINS_FILE_MODULE = ("kernel", "func", "func_native", "func_grad", "func_replay", "struct", "overload")


class KernelAfterLoad(Rule):
    code = "WCT007"
    name = "kernel-after-load"
    severity = Severity.WARNING
    summary = "A kernel, function or overload joins a Warp module after that module was launched or loaded"
    fix_applicability = None
    uses_astroid = False
    triggers = (r"@[ \t]*[\w.]*(?:kernel|func|struct|overload)\b|overload\s*\(",)
    docs = '''
    ## What it does
    Flags a `@wp.kernel`, `@wp.func`, `@wp.struct`, `@wp.overload` or `wp.overload(...)`
    that adds to a Warp module after, earlier in the same function (or module body), a
    kernel of that module was launched or the module was loaded (`wp.launch`,
    `wp.launch_tiled`, `wp.get_suggested_block_size`, `wp.force_load`,
    `wp.load_module`).

    ## Why it costs compile time
    Every kernel, function and overload of a Python file belongs to one Warp module,
    which is compiled as a whole. Adding to it after it was built changes its hash: the
    next launch generates and compiles the whole module again, including every kernel
    that was already built.

    ## Example
    ```python
    import warp as wp

    @wp.kernel
    def init(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = 0.0

    x = wp.zeros(16, dtype=float)
    wp.launch(init, dim=16, inputs=[x])

    @wp.kernel
    def step(x: wp.array(dtype=float)):  # WCT007
        i = wp.tid()
        x[i] = x[i] + 1.0

    wp.launch(step, dim=16, inputs=[x])
    ```

    ## Use instead
    Define everything first, then launch:
    ```python
    import warp as wp

    @wp.kernel
    def init(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = 0.0

    @wp.kernel
    def step(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = x[i] + 1.0

    x = wp.zeros(16, dtype=float)
    wp.launch(init, dim=16, inputs=[x])
    wp.launch(step, dim=16, inputs=[x])
    ```

    ## When not to apply
    A kernel with `module="unique"` has a module of its own, and launching a kernel of
    another file does not load this file's module:
    ```python
    import warp as wp

    @wp.kernel
    def init(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = 0.0

    x = wp.zeros(16, dtype=float)
    wp.launch(init, dim=16, inputs=[x])

    @wp.kernel(module="unique")
    def step(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = x[i] + 1.0

    wp.launch(step, dim=16, inputs=[x])
    ```
    Generic kernels launched with new argument types are not checked: that needs the
    types at run time (`warp-ct probe measure` shows the extra builds).
    '''

    def needs_tree(self, summary: "FileSummary", project: "Project") -> bool:
        # A finding needs a load and, later in the same flow, a definition. Library files
        # define kernels first and launch them inside functions: no tree for those.
        text = summary.text
        first_load = _LOAD_CALL_RE.search(text)
        if first_load is None:
            return False
        nested = (m.start() for m in _NESTED_DEFINITION_RE.finditer(text))
        if any(start > first_load.start() for start in nested):
            return True  # a definition inside a block: its function may have launched first
        definitions = [m.start() for m in _DEFINITION_RE.finditer(text)]
        for load in _LOAD_CALL_RE.finditer(text):
            if not _in_function(text, load.start()) and any(d > load.start() for d in definitions):
                return True  # module-level code loads, and a definition follows
        return False

    def visit_module(self, node: ast.Module, ctx: FileContext) -> None:
        index = flow_index(ctx)
        for owner, items in index.flows:
            # Only a flow with a load can report: check the cheap callee label first.
            if not any(type(n) is ast.Call and callee_label(n) in _LOADER_LABELS for n in items):
                continue
            if isinstance(owner, syntax.FUNCTION_TYPES) and is_warp_code(owner, ctx):
                continue
            additions = list(_additions(ctx, owner, items))
            if not additions:
                continue
            loads = _loads_in(ctx, owner, items)
            if not loads:
                continue
            for added, module, what in additions:
                load = _loaded_before(loads, module, added, ctx, index)
                if load is None:
                    continue
                ctx.report(
                    added,
                    f"{what} joins {_describe(ctx, module)} after {load.what}: the module gets a new hash and "
                    "is built again, whole, at its next launch. Define it before the first launch.",
                )


def _additions(ctx: FileContext, owner: ast.AST, items: list[ast.AST]) -> Iterator[tuple[ast.AST, str, str]]:
    """(node, module, description) for definitions in ``owner``'s flow that join a module."""
    for node in items:
        if isinstance(node, syntax.FUNCTION_TYPES) and node is not owner:
            dec = ctx.kernel_decorator(node, kinds=_JOINS_FILE_MODULE)
            if dec is None:
                continue
            if dec.kind == "kernel" and "module" in dec.keywords:
                continue  # module="unique" (or a named module): not this file's module
            if dec.kind == "overload":
                yield node, ctx.module_name, f"The overload `{node.name}`"
                continue
            label = {"kernel": "kernel", "struct": "struct"}.get(dec.kind, "function")
            yield node, ctx.module_name, f"The {label} `{node.name}`"
        elif isinstance(node, ast.ClassDef):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if ctx.warp_name(target) == "warp.struct":
                    if isinstance(decorator, ast.Call) and ctx.keyword(decorator, "module") is not None:
                        break
                    yield node, ctx.module_name, f"The struct `{node.name}`"
                    break
        elif isinstance(node, ast.Call) and _may_be_overload(node) and ctx.call_name(node) == "warp.overload":
            kernel = ctx.keyword(node, "kernel", 0)
            module = _kernel_module(ctx, kernel)
            if module is not None:
                yield node, module, f"The overload of `{ctx.source_of(kernel)}`"


def _may_be_overload(call: ast.Call) -> bool:
    """A dotted callee's Warp name ends with its last attribute: ``x.y.f()`` can only be
    ``wp.overload`` when ``f`` is ``overload`` (a bare name may be an alias: resolve it)."""
    func = call.func
    return isinstance(func, ast.Name) or isinstance(func, ast.Attribute) and func.attr == "overload"


# ---------------------------------------------------------------------- flows (one walk)
# Straight-line flows as WCT006 defines them (``flows``/``flow_nodes`` there), built in a
# single walk of the tree and shared through ``ctx.state`` with WCT002.
_FLOWS_STATE = "WCT007.flows"
_KERNEL_LOADERS = {"warp.launch": 0, "warp.launch_tiled": 0, "warp.get_suggested_block_size": 0}
_ANY_MODULE = "*"  # wp.force_load(): every module that exists so far
_LOADER_LABELS = frozenset({"launch", "launch_tiled", "get_suggested_block_size", "force_load", "load_module"})
_WARP_CODE = ("kernel", "func", "func_native", "func_grad", "func_replay")
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
# Fields that never hold a node (or only operators / contexts).
_NOT_CHILDREN = frozenset(
    {"ctx", "op", "ops", "type_comment", "kind", "conversion", "is_async", "level", "simple", "module", "id", "attr",
     "arg", "name", "names", "kwd_attrs", "rest"}
)  # fmt: skip
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(kind: type) -> tuple[str, ...]:
    """The fields of a node class that may hold child nodes, last first (for a stack)."""
    fields = _CHILD_FIELDS.get(kind)
    if fields is None:
        fields = tuple(f for f in reversed(getattr(kind, "_fields", ())) if f not in _NOT_CHILDREN)
        _CHILD_FIELDS[kind] = fields
    return fields


@dataclass
class FlowIndex:
    """The module and every function (in pre-order) with the nodes of its straight-line
    flow that a flow rule looks at (calls, defs, classes), in flow order."""

    flows: list[tuple[ast.AST, list[ast.AST]]]
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef]  # every def of the file, pre-order


def flow_index(ctx: FileContext) -> FlowIndex:
    """One walk of ``ctx.tree``: for the module and each Python function, the Call,
    FunctionDef and ClassDef nodes that run as part of its body (not nested functions,
    lambdas or, except at module level, class bodies; a nested def and its decorators and
    defaults belong to the enclosing flow), in the order astroid's pre-order walk met them
    (WCT006's ``flow_nodes``). Every node is visited once; cached in ``ctx.state``."""
    cached = ctx.state.get(_FLOWS_STATE)
    if cached is not None:
        return cached
    tree = ctx.tree
    flows: list[tuple[ast.AST, list[ast.AST]]] = []
    functions: list[ast.AST] = []
    owners: list[ast.AST] = [tree]
    Call, FunctionDef, AsyncFunctionDef, Lambda, ClassDef, Dict = (
        ast.Call, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Dict
    )  # fmt: skip
    leaves, child_fields = _LEAVES, _CHILD_FIELDS
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
            if kind is Call:
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
                # astroid's order: key, value, key, value ...
                for key, value in zip(reversed(node.keys), reversed(node.values)):
                    push(value)
                    if key is not None:
                        push(key)
                continue
            fields = child_fields.get(kind)
            if fields is None:
                fields = _child_fields(kind)
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
    # Flows were collected depth-last; pre-order of defs is source order of their ``def``.
    flows.sort(key=lambda flow: (0, -1) if flow[0] is tree else (flow[0].lineno, flow[0].col_offset))  # type: ignore
    functions.sort(key=lambda func: (func.lineno, func.col_offset))  # type: ignore[attr-defined]
    index = FlowIndex(flows, functions)  # type: ignore[arg-type]
    ctx.state[_FLOWS_STATE] = index
    return index


def callee_label(call: ast.Call) -> str | None:
    """The last name of a call's callee (``wp.launch`` -> ``launch``): a cheap pre-filter."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def is_warp_code(func: ast.AST, ctx: FileContext) -> bool:
    return ctx.kernel_decorator(func, kinds=_WARP_CODE) is not None


@dataclass(frozen=True)
class _Load:
    node: ast.Call
    module: str  # Warp module name (the Python module's name), or _ANY_MODULE
    what: str  # for messages: "`step` was launched", "modules were force-loaded"


def _loads_in(ctx: FileContext, owner: ast.AST, items: list[ast.AST]) -> list[_Load]:
    """Calls in ``owner``'s flow that certainly load a known module."""
    found: list[_Load] = []
    for node in items:
        if type(node) is not ast.Call or callee_label(node) not in _LOADER_LABELS:
            continue
        name = ctx.call_name(node)
        if name is None:
            continue
        if name in _KERNEL_LOADERS:
            kernel = ctx.keyword(node, "kernel", _KERNEL_LOADERS[name])
            module = _kernel_module(ctx, kernel)
            if module is None:
                continue
            verb = "queried for its block size" if name.endswith("block_size") else "launched"
            found.append(_Load(node, module, f"`{ctx.source_of(kernel)}` was {verb} on line {node.lineno}"))
        elif name == "warp.force_load":
            if ctx.keyword(node, "modules", 1) is not None:
                continue
            found.append(_Load(node, _ANY_MODULE, f"`wp.force_load()` loaded every module on line {node.lineno}"))
        elif name == "warp.load_module":
            arg = ctx.keyword(node, "module", 0)
            module = _module_ref(ctx, arg)
            if module is None:
                continue
            found.append(_Load(node, module, f"`wp.load_module` loaded it on line {node.lineno}"))
    return [load for load in found if _definitely_runs(load.node, owner)]


def _definitely_runs(node: ast.AST, owner: ast.AST) -> bool:
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
        if isinstance(current, (ast.ExceptHandler, ast.Lambda, *syntax.FUNCTION_TYPES, *syntax.COMPREHENSION_TYPES)):
            return False
        if isinstance(current, (ast.For, ast.AsyncFor, ast.While)) and child in current.orelse:
            return False
        child = current
        current = getattr(current, "parent", None)
    return current is owner


def _loaded_before(loads: list[_Load], module: str, node: ast.AST, ctx: FileContext, index: FlowIndex) -> _Load | None:
    for load in loads:
        if load.module not in (module, _ANY_MODULE) or not _precedes(load.node, node) or _inside(node, load.node):
            continue
        if load.module == _ANY_MODULE and module == ctx.module_name:
            # wp.force_load() only built this file's module if it had Warp code by then.
            if not _file_code_before(ctx, load.node, index):
                continue
        return load
    return None


def _precedes(a: ast.AST, b: ast.AST) -> bool:
    return (a.lineno, a.col_offset or 0) < (b.lineno, b.col_offset or 0)  # type: ignore[attr-defined]


def _file_code_before(ctx: FileContext, node: ast.AST, index: FlowIndex) -> bool:
    for func in index.functions:
        if func.lineno >= node.lineno:  # type: ignore[attr-defined]
            continue
        dec = ctx.kernel_decorator(func, kinds=("kernel", "func", "func_native"))
        if dec is not None and not (dec.kind == "kernel" and "module" in dec.keywords):
            return True
    return False


def _inside(node: ast.AST, ancestor: ast.AST) -> bool:
    return node is ancestor or any(a is ancestor for a in syntax.ancestors(node))


def _describe(ctx: FileContext, module: str) -> str:
    return "this file's Warp module" if module == ctx.module_name else f"the Warp module `{module}`"


# ---------------------------------------------------------------------- modules
def _kernel_module(ctx: FileContext, expr: ast.AST | None) -> str | None:
    """The Warp module a kernel expression belongs to; None when unknown or own-module."""
    if expr is None:
        return None
    if isinstance(expr, ast.Name):
        _scope, bindings = syntax.lookup(expr)
        if len(bindings) == 1 and isinstance(bindings[0], syntax.FUNCTION_TYPES):
            dec = ctx.kernel_decorator(bindings[0])
            if dec is None or "module" in dec.keywords:
                return None  # not a kernel, or module="unique"/custom: its own module
            return ctx.module_name
        if bindings and not all(isinstance(b, (ast.ImportFrom, ast.Import)) for b in bindings):
            return None
    if not isinstance(expr, (ast.Name, ast.Attribute)):
        return None
    from astroid import nodes as anodes

    values = ctx.infer(expr, limit=2)
    if len(values) == 1 and isinstance(values[0], anodes.FunctionDef):
        return _module_of_inferred_kernel(ctx, values[0])
    return None


def _module_of_inferred_kernel(ctx: FileContext, func: Any) -> str | None:
    """``_kernel_module`` of a function astroid inferred (this file or another one)."""
    root = func.root()
    if root is ctx.astroid_tree() or getattr(root, "name", None) == ctx.module_name:
        definition = ctx.ast_definition(func)
        dec = ctx.kernel_decorator(definition) if definition is not None else None
        if dec is None or "module" in dec.keywords:
            return None
        return ctx.module_name
    # Another file: its decorators are resolved in its own (astroid) scopes; ``ctx``'s
    # name resolution only knows this file's module name and astroid twins.
    keywords = _foreign_kernel_keywords(func)
    if keywords is None or "module" in keywords:
        return None
    summary = ctx.project.files.get(root.file) if root.file else None
    return summary.module_name if summary is not None else root.name


def _foreign_kernel_keywords(func: Any) -> dict[str, Any] | None:
    """Keyword arguments of the ``@wp.kernel`` decorator of an astroid function of another
    file ({} without a call); None when it has none."""
    from astroid import nodes as anodes

    for decorator in func.decorators.nodes if func.decorators is not None else ():
        call = decorator if isinstance(decorator, anodes.Call) else None
        target = call.func if call is not None else decorator
        name = _astroid_warp_name(target, 0)
        if name is not None and name.rsplit(".", 1)[-1] == "kernel":
            return {kw.arg: kw.value for kw in (call.keywords or []) if kw.arg} if call is not None else {}
    return None


def _astroid_warp_name(node: Any, depth: int) -> str | None:
    """The Warp name a dotted astroid Name/Attribute denotes through the imports of its own
    module (no inference), e.g. ``"warp.kernel"``."""
    from astroid import nodes as anodes

    if depth > 4:
        return None
    attrs: list[str] = []
    base = node
    while isinstance(base, anodes.Attribute):
        attrs.append(base.attrname)
        base = base.expr
    if not isinstance(base, anodes.Name):
        return None
    try:
        _scope, bindings = base.lookup(base.name)
    except Exception:  # noqa: BLE001 - astroid raises many kinds on odd code
        return None
    if not bindings:
        return None
    binding = bindings[-1]
    root: str | None = None
    if isinstance(binding, anodes.Import):
        for modname, alias in binding.names:
            if alias == base.name:
                root = modname
            elif alias is None and modname.split(".")[0] == base.name:
                root = base.name
    elif isinstance(binding, anodes.ImportFrom):
        try:
            module = binding.root().relative_to_absolute_name(binding.modname or "", binding.level)
        except Exception:  # noqa: BLE001 - too many dots and the like
            return None
        for original, alias in binding.names:
            if (alias or original) == base.name:
                root = f"{module}.{original}"
    elif isinstance(binding, anodes.AssignName):
        assign = binding.parent
        if isinstance(assign, anodes.Assign) and len(assign.targets) == 1 and assign.targets[0] is binding:
            if isinstance(assign.value, (anodes.Name, anodes.Attribute)):
                root = _astroid_warp_name(assign.value, depth + 1)
    if root is None:
        return None
    full = ".".join([root, *reversed(attrs)])
    if full == "warp" or full.startswith("warp."):
        return normalize_warp_name(full)
    return None


def _module_ref(ctx: FileContext, node: ast.AST | None) -> str | None:
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
        return _module_ref(ctx, ctx.keyword(node, "name", 0))
    from astroid import nodes as anodes

    if isinstance(node, ast.Attribute) and node.attr == "__name__":
        values = ctx.infer(node.value, limit=2)
        if len(values) == 1 and isinstance(values[0], anodes.Module):
            return _project_name(ctx, values[0])
        return None
    if isinstance(node, (ast.Name, ast.Attribute)):
        values = ctx.infer(node, limit=2)
        if len(values) == 1 and isinstance(values[0], anodes.Module):
            return _project_name(ctx, values[0])
    return None


def _project_name(ctx: FileContext, module: Any) -> str:
    if module is ctx.astroid_tree():
        return ctx.module_name
    return module.name

def _in_function(text: str, offset: int) -> bool:
    """Whether the top-level statement around ``offset`` is a function (by indentation).
    Class bodies run at import, so they count as module-level code."""
    line_start = text.rfind("\n", 0, offset) + 1
    while True:
        line_end = text.find("\n", line_start)
        line = text[line_start : line_end if line_end != -1 else len(text)]
        top_level = line[:1] not in ("", " ", "\t", "#", ")", "]", "}")
        if top_level or line_start == 0:
            return bool(top_level and _FUNCTION_HEAD_RE.match(line))
        line_start = text.rfind("\n", 0, line_start - 1) + 1
