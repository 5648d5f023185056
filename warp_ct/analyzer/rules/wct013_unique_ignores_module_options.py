"""WCT013 unique-ignores-module-options."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Callable

from warp_ct.analyzer import syntax, textscan
from warp_ct.analyzer.context import UNIQUE_MODULE_TEXT, FileContext
from warp_ct.analyzer.facts import OptionFact, Value, call_argument, const
from warp_ct.analyzer.model import Applicability, Severity
from warp_ct.analyzer.program import KernelRef
from warp_ct.analyzer.query import QueryContext
from warp_ct.analyzer.rules.base import Rule

if TYPE_CHECKING:
    from warp_ct.analyzer.project import FileSummary, Project

_UNIQUE_MODULE_RE = re.compile(UNIQUE_MODULE_TEXT)


def bare_module_option_calls(ctx: FileContext) -> list[ast.Call]:
    """``wp.set_module_options(...)`` calls that target the calling file's own module
    (no ``module=``, ``module=None`` or ``module=__name__``), cached per file."""
    key = "__bare_set_module_options__"
    cached = ctx.state.get(key)
    if cached is None:
        cached = []
        for call in ctx.calls_to("warp.set_module_options"):
            if any(kw.arg is None for kw in call.keywords):
                continue  # **kwargs: cannot tell the target
            target = ctx.keyword(call, "module", 1)
            if target is None or _names_own_module(target):
                cached.append(call)
        ctx.state[key] = cached
    return cached


def _names_own_module(target: ast.AST) -> bool:
    """``None`` or ``__name__``: the calling file's own module."""
    return (isinstance(target, ast.Constant) and target.value is None) or (
        isinstance(target, ast.Name) and target.id == "__name__"
    )


def dict_items(node: ast.AST | None) -> list[tuple[ast.Constant, ast.expr]] | None:
    """(key, value) pairs of a dict literal with constant string keys, else None."""
    if not isinstance(node, ast.Dict):
        return None
    items = []
    for key, value in zip(node.keys, node.values):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            return None  # ``**spread`` (key None) or a computed key
        items.append((key, value))
    return items


# What a unique kernel's module gets when the option does not reach it (Warp 1.19 defaults).
# An option set to exactly this value changes nothing for the unique kernel.
_DEFAULTS = {
    "enable_backward": True, "max_unroll": 16, "fast_math": False, "fuse_fp": True, "lineinfo": False,
    "block_dim": 256, "strip_hash": False, "default_grid_stride": True, "compile_time_trace": False,
}  # fmt: skip
# Options whose loss costs compile time (the rest change the generated code only).
_COMPILE_TIME = {"enable_backward", "max_unroll", "optimization_level", "mode", "lineinfo", "compile_time_trace"}


class UniqueIgnoresModuleOptions(Rule):
    code = "WCT013"
    name = "unique-ignores-module-options"
    severity = Severity.WARNING
    summary = 'A `module="unique"` kernel does not get the options its file sets with `wp.set_module_options`'
    fix_applicability = Applicability.UNSAFE
    triggers = (r"set_module_options",)
    docs = '''
    ## What it does
    Flags a `@wp.kernel(module="unique")` in a file that sets options for itself with
    `wp.set_module_options({...})`, when the kernel does not pass the same options on
    its own decorator (`enable_backward=` or `module_options=`).

    ## Why it costs compile time
    `wp.set_module_options` configures the Warp module of the file. A `module="unique"`
    kernel does not live in that module: it gets a module of its own, created when the
    kernel is decorated, which copies the global `wp.config` defaults instead. So with
    `{"enable_backward": False}` at the top of the file, the unique kernel still
    generates and compiles its backward code; other options (`max_unroll`, `fast_math`,
    `block_dim`...) are lost the same way.

    ## Example
    ```python
    import warp as wp

    wp.set_module_options({"enable_backward": False})

    @wp.kernel(module="unique")  # WCT013
    def integrate(x: wp.array(dtype=float), v: wp.array(dtype=float), dt: float):
        i = wp.tid()
        x[i] = x[i] + v[i] * dt
    ```

    ## Use instead
    Give the kernel the options itself:
    ```python
    import warp as wp

    wp.set_module_options({"enable_backward": False})

    @wp.kernel(module="unique", module_options={"enable_backward": False})
    def integrate(x: wp.array(dtype=float), v: wp.array(dtype=float), dt: float):
        i = wp.tid()
        x[i] = x[i] + v[i] * dt

    @wp.kernel(module="unique", enable_backward=False)
    def damp(v: wp.array(dtype=float), k: float):
        i = wp.tid()
        v[i] = v[i] * k
    ```
    or drop `module="unique"` when the kernel does not need a module of its own.

    ## When not to apply
    When the unique kernel is meant to differ from the file's settings (for example, it
    is the one kernel that must be differentiable), say so on its decorator:
    ```python
    import warp as wp

    wp.set_module_options({"enable_backward": False})

    @wp.kernel(module="unique", enable_backward=True)
    def loss(x: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        wp.atomic_add(out, 0, x[i] * x[i])
    ```
    '''

    # The facts name the unique kernels and ``set_module_options`` calls the file's own
    # imports can: the query judges those, reading the decorator and the calls from their
    # source. Where a name may be re-exported by a project module, the file goes to the
    # tree check instead, which judges all of it (the query then stays silent there).
    def query(self, ctx: QueryContext) -> None:
        facts = ctx.facts
        summary = ctx.project.files.get(ctx.path)
        if summary is not None and self.triggered_by(ctx.text) and self.needs_tree(summary, ctx.project):
            return  # the tree check's file
        changes = [o for o in facts.options if o.set_by_call and not o.spread and _own_module(o.target)]
        if not changes:
            return
        calls = [call for call in map(ctx.expression_at, (o.span for o in changes)) if isinstance(call, ast.Call)]
        for kernel in facts.kernels:
            if kernel.decorator != "kernel" or kernel.module != const("unique"):
                continue
            decorator = ctx.expression_at(kernel.decorator_span)
            if isinstance(decorator, ast.Call):
                beside = _set_on_own_module(facts.options, kernel.name, lambda o, k=kernel: o.function == k.function)
                _judge(ctx, kernel.name, kernel.span[0], decorator, decorator, calls, beside)

    def needs_tree(self, summary: "FileSummary", project: "Project") -> bool:
        # Only a ``module="unique"`` kernel can miss the file's options, and only names the
        # facts cannot resolve leave the query something to miss.
        if textscan.search_at(_UNIQUE_MODULE_RE, "module", summary.text) is None:
            return False
        return project.imports_warp_names(summary)

    def visit_functiondef(self, node: ast.FunctionDef, ctx: FileContext) -> None:
        decorator = ctx.kernel_decorator(node)
        if decorator is None or decorator.call is None or not decorator.is_unique:
            return
        calls = bare_module_option_calls(ctx)
        if calls:
            outer = next(iter(syntax.enclosing_functions(node)), None)
            if outer is None:
                beside = _set_on_own_module(ctx.facts.options, node.name, lambda o: o.function is None)
            else:
                lines = range(outer.lineno, (outer.end_lineno or outer.lineno) + 1)
                beside = _set_on_own_module(ctx.facts.options, node.name, lambda o: o.span[0] in lines)
            _judge(ctx, node.name, node.lineno, decorator.call, decorator.decorator, calls, beside)


def _set_on_own_module(options: list[OptionFact], name: str, beside: Callable[[OptionFact], bool]) -> set[str] | None:
    """The options the code ``beside`` a unique kernel (its function) sets on the kernel's
    own module: ``wp.set_module_options({...}, module=k.module)`` (newton's VBD factories).
    None: such a call sets options the facts cannot read."""
    found: set[str] = set()
    target = Value("name", f"{name}.module")
    for option in options:
        if option.kind == "module_options" and option.target == target and beside(option):
            if option.spread or "*" in option.options:
                return None
            found.update(option.options)
    return found


def _judge(ctx: "FileContext | QueryContext", name: str, line: int, call: ast.Call, where: ast.AST,
           calls: list[ast.Call], set_on_own: set[str] | None = frozenset()) -> None:  # type: ignore[assignment]  # fmt: skip
    """Report the unique kernel ``name`` (defined on ``line``, decorated by ``call``, reported
    at ``where``) when the file's own ``set_module_options`` ``calls`` set options it does
    not set itself, with its decorator or on its own module (``set_on_own``; None: unknown
    options). The nodes carry the file's positions (a tree's, or ``expression_at``'s)."""
    if any(kw.arg is None for kw in call.keywords) or set_on_own is None:
        return  # **kwargs on the decorator, or options set on its module the facts cannot read
    keywords = {kw.arg: kw.value for kw in call.keywords if kw.arg}
    own = keywords.get("module_options")
    own_items = dict_items(own)
    if own is not None and own_items is None:
        return  # options computed elsewhere: assume they are the file's
    own_keys = {k.value for k, _ in own_items or []} | set_on_own
    if "enable_backward" in keywords:
        own_keys.add("enable_backward")
    if "grid_stride" in keywords:  # the per-kernel form of "default_grid_stride"
        own_keys.add("default_grid_stride")

    missing: dict[str, tuple[ast.Constant, ast.expr]] = {}
    unknown_call = None
    for change in calls:
        items = dict_items(call_argument(change, "options", 0) or call_argument(change, "opts", 0))
        if items is None:
            unknown_call = unknown_call or change
            continue
        for key, value in items:
            if key.value in own_keys:
                continue
            if isinstance(value, ast.Constant) and key.value in _DEFAULTS and value.value == _DEFAULTS[key.value]:
                continue  # the unique module gets this value anyway
            missing.setdefault(key.value, (key, value))
    if "block_dim" in missing and _every_launch_passes_block_dim(ctx, name, line):
        del missing["block_dim"]  # the module default never applies to this kernel
        if not missing:
            return
    where_range = ctx.node_range(where)
    if not missing:
        if unknown_call is None or own is not None or "enable_backward" in keywords:
            return
        ctx.report(
            where_range,
            f"`{name}` has its own module (module=\"unique\"), so the options this file sets with "
            f"`wp.set_module_options` (line {unknown_call.lineno}) do not reach it: it keeps the `wp.config` "
            "defaults; pass them with `module_options=` on the decorator",
        )
        return
    names = ", ".join(f'"{k}"' for k in missing)
    message = (
        f"`{name}` has its own module (module=\"unique\"), so the options this file sets with "
        f"`wp.set_module_options` (line {calls[0].lineno}: {names}) do not reach it: it keeps the `wp.config` defaults"
    )
    if "enable_backward" in missing:
        message += " and still generates backward code"
    entries = ", ".join(f"{ctx.source_of(k)}: {ctx.source_of(v)}" for k, v in missing.values())
    if own is None:
        closing, text = call, f"module_options={{{entries}}}"
        title = "Pass the same options with `module_options=`"
    else:
        closing, text = own, entries
        title = "Add the file's options to `module_options=`"
    end = ctx.node_range(closing).end
    before = ctx.text[: ctx.index.offset(end.line, end.character - 1)].rstrip()
    empty = before.endswith("(") or before.endswith("{")
    prefix = "" if empty else (" " if before.endswith(",") else ", ")
    fix = ctx.fix(title, ctx.insert_at(end.line, end.character - 1, prefix + text), safe=False)
    costly = any(k in _COMPILE_TIME for k in missing)
    if not costly:
        message += " (these options change the generated code, not the compile time)"
    ctx.report(where_range, message, fixes=[fix], severity=None if costly else Severity.INFO)


def _own_module(target: Value | None) -> bool:
    return target is None or target == const(None) or target == Value("name", "__name__")


def _every_launch_passes_block_dim(ctx: "FileContext | QueryContext", name: str, line: int) -> bool:
    """Every launch the program makes of this kernel passes ``block_dim=``."""
    program = ctx.program
    target = next((KernelRef(ctx.module_name, i) for i, k in enumerate(ctx.facts.kernels)
                   if k.name == name and k.span[0] == line), None)  # fmt: skip
    if target is None:
        return False
    launches = [
        launch
        for module, facts in program.modules.items()
        for index, launch in enumerate(facts.launches)
        if launch.kind.startswith("launch") and target in program.launch_kernels(module, index)
    ]
    # No launch in view (loaded by hand, ``module.load(device, block_dim)``, or by callers):
    # nothing shows the default block_dim ever applies.
    return all(launch.block_dim is not None for launch in launches)
