"""WCT007 kernel-after-load."""

from __future__ import annotations

import ast
import bisect
import re
from typing import TYPE_CHECKING, Iterator

from warp_ct.analyzer import syntax, textscan
from warp_ct.analyzer.context import FileContext
from warp_ct.analyzer.flows import (
    LOADER_LABELS,
    callee_label,
    describe,
    flow_index,
    is_warp_code,
    kernel_module,
    load_calls,
    loaded_before,
    loads_in,
)
from warp_ct.analyzer.model import Severity
from warp_ct.analyzer.rules.base import Rule

if TYPE_CHECKING:
    from warp_ct.analyzer.project import FileSummary, Project

# Text shapes for the tree gate (supersets of what the check resolves).
_DEFINITION_RE = re.compile(r"@[ \t]*[\w.]*(?:kernel|func(?:_native|_grad|_replay)?|struct|overload)\b|overload\s*\(", re.MULTILINE)
# A definition inside a block: an indented decorator, or any ``overload(`` call.
_NESTED_DECORATOR_RE = re.compile(r"^[ \t]+@[ \t]*[\w.]*(?:kernel|func(?:_native|_grad|_replay)?|struct|overload)\b", re.MULTILINE)
_OVERLOAD_CALL_RE = re.compile(r"overload\s*\(")

# Definitions that join the file's Warp module (and mark it modified).
_JOINS_FILE_MODULE = ("kernel", "func", "func_native", "func_grad", "func_replay", "struct", "overload")


class KernelAfterLoad(Rule):
    code = "WCT007"
    name = "kernel-after-load"
    severity = Severity.WARNING
    summary = "A kernel, function or overload joins a Warp module after that module was launched or loaded"
    fix_applicability = None
    triggers = (r"@[ \t]*[\w.]*(?:kernel|func(?:_native|_grad|_replay)?|struct|overload)\b|overload\s*\(",)
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
        # Each pattern is tried only where a match can start (textscan): a \b-alternation
        # would otherwise be tried at every offset of every file.
        loads = [start for start, _end, _label in load_calls(text)]
        if not loads:
            return False
        after = loads[0] + 1
        if textscan.search_at(_OVERLOAD_CALL_RE, "overload", text, after):
            return True  # ``wp.overload(...)`` may sit in any flow
        top_level_lines = textscan.top_level_lines(text)
        for nested in textscan.finditer_lines(_NESTED_DECORATOR_RE, "@", text, after):
            # A definition inside a block: in a function, a load must come before it in
            # that function (from its ``def`` line on); elsewhere any earlier load counts.
            # (A column-0 ``def`` line inside a string of that function would hide the
            # loads above it: the one shape this reading of indentation gets wrong.)
            start = textscan.function_start(text, nested.start(), top_level_lines)
            if start is None or bisect.bisect_left(loads, start) < bisect.bisect_left(loads, nested.start()):
                return True
        last_definition = max((m.start() for m in textscan.finditer_at(_DEFINITION_RE, ("@", "overload"), text)), default=-1)
        for load in loads:
            if load >= last_definition:
                break  # no definition follows this load or any later one
            if textscan.function_start(text, load, top_level_lines) is None:
                return True  # module-level code loads, and a definition follows
        return False

    def visit_module(self, node: ast.Module, ctx: FileContext) -> None:
        for owner, items in flow_index(ctx).flows:
            # Only a flow with a load can report: check the cheap callee label first.
            if not any(type(n) is ast.Call and callee_label(n) in LOADER_LABELS for n in items):
                continue
            if isinstance(owner, syntax.FUNCTION_TYPES) and is_warp_code(owner, ctx):
                continue
            additions = list(_additions(ctx, owner, items))
            if not additions:
                continue
            loads = loads_in(ctx, owner, items)
            if not loads:
                continue
            for added, module, what in additions:
                load = loaded_before(ctx, loads, module, added)
                if load is None:
                    continue
                ctx.report(
                    added,
                    f"{what} joins {describe(ctx, module)} after {load.what}: the module gets a new hash and "
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
            module = kernel_module(ctx, kernel)
            if module is not None:
                yield node, module, f"The overload of `{ctx.source_of(kernel)}`"


def _may_be_overload(call: ast.Call) -> bool:
    """A dotted callee's Warp name ends with its last attribute: ``x.y.f()`` can only be
    ``wp.overload`` when ``f`` is ``overload`` (a bare name may be an alias: resolve it)."""
    func = call.func
    return isinstance(func, ast.Name) or isinstance(func, ast.Attribute) and func.attr == "overload"
