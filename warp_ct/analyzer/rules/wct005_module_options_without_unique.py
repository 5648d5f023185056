"""WCT005 module-options-without-unique."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from warp_ct.analyzer import syntax, textscan
from warp_ct.analyzer.context import KERNEL_DECORATOR_RE, FileContext
from warp_ct.analyzer.facts import FileFacts, KernelFact, expects_error
from warp_ct.analyzer.model import Applicability, Severity
from warp_ct.analyzer.query import QueryContext
from warp_ct.analyzer.rules.base import Rule

if TYPE_CHECKING:
    from warp_ct.analyzer.project import FileSummary, Project


class ModuleOptionsWithoutUnique(Rule):
    code = "WCT005"
    name = "module-options-without-unique"
    severity = Severity.ERROR
    summary = '`@wp.kernel(module_options=...)` without `module="unique"` raises at import'
    fix_applicability = Applicability.SAFE
    triggers = (r"module_options\s*=",)
    docs = '''
    ## What it does
    Flags `@wp.kernel(module_options={...})` when the decorator does not also pass
    `module="unique"`.

    ## Why it costs compile time
    Per-kernel options only make sense when the kernel owns its module: Warp raises
    `ValueError` at decoration time otherwise, so the program never gets as far as
    compiling. The fix gives the kernel its own module, built once with exactly these
    options.

    ## Example
    ```python
    import warp as wp

    @wp.kernel(module_options={"enable_backward": False})  # WCT005
    def scale(a: wp.array(dtype=float), s: float):
        i = wp.tid()
        a[i] = a[i] * s
    ```

    ## Use instead
    ```python
    import warp as wp

    @wp.kernel(module="unique", module_options={"enable_backward": False})
    def scale(a: wp.array(dtype=float), s: float):
        i = wp.tid()
        a[i] = a[i] * s
    ```

    ## When not to apply
    If the options should apply to every kernel of the file, drop `module_options=` and
    call `wp.set_module_options({...})` at the top of the file instead, before the
    first kernel is loaded:
    ```python
    import warp as wp

    wp.set_module_options({"enable_backward": False})

    @wp.kernel
    def scale(a: wp.array(dtype=float), s: float):
        i = wp.tid()
        a[i] = a[i] * s
    ```

    A test that checks the error is left alone: a kernel defined inside
    `with pytest.raises(...)` (or `raises(...)` imported from pytest) or a unittest
    `assertRaises` / `assertRaisesRegex` block raises on purpose, and is not reported:
    ```python
    import pytest
    import warp as wp

    def test_module_options_need_unique():
        with pytest.raises(ValueError, match="unique"):
            @wp.kernel(module_options={"enable_backward": False})
            def scale(a: wp.array(dtype=float), s: float):
                i = wp.tid()
                a[i] = a[i] * s
    ```
    '''

    # The facts name every decorator the file's own imports can: the query reports those
    # kernels. A decorator they cannot name (``kernel`` re-exported by a project module) is
    # the tree check's, which skips the kernels the facts saw.
    def query(self, ctx: QueryContext) -> None:
        for kernel in _seen_with_options(ctx.facts):
            if kernel.module is not None or kernel.options_span is None:
                continue  # ``module=<something computed>``: cannot tell statically
            if kernel.expects_error:
                continue  # a test that checks Warp raises here
            line, col = kernel.options_span[:2]
            fix = ctx.fix('Add `module="unique"`', ctx.replace((line, col, line, col), 'module="unique", '))
            ctx.report(kernel.options_span, _MESSAGE, fixes=[fix])

    def needs_tree(self, summary: "FileSummary", project: "Project") -> bool:
        # The facts name decorators through the file's own imports: only a name imported from
        # a project module that re-exports Warp's may hide one, and only where the text has
        # more ``@...kernel`` decorators than the facts have kernels.
        if not project.imports_warp_names(summary):
            return False
        decorators = sum(1 for _ in textscan.finditer_at(KERNEL_DECORATOR_RE, "@", summary.text))
        return decorators > sum(1 for k in project.facts(summary).kernels if k.decorator == "kernel")

    def visit_functiondef(self, node: ast.FunctionDef, ctx: FileContext) -> None:
        if any(k.span[0] == node.lineno for k in ctx.facts.kernels):
            return  # the query judged this kernel
        decorator = ctx.kernel_decorator(node)
        if decorator is None or decorator.call is None:
            return
        options = decorator.keywords.get("module_options")
        if options is None or decorator.is_unique:
            return
        if "module" in decorator.keywords:
            return  # module=<something computed>: cannot tell statically
        if _in_raises_block(node, ctx.facts.aliases):
            return  # a test that checks Warp raises here
        keyword = next(kw for kw in decorator.call.keywords if kw.arg == "module_options")
        rng = ctx.node_range(keyword)
        fix = ctx.fix('Add `module="unique"`', ctx.insert_at(rng.start.line, rng.start.character, 'module="unique", '))
        ctx.report(keyword, _MESSAGE, fixes=[fix])



_MESSAGE = '`module_options=` needs `module="unique"`: Warp raises ValueError at import without it'


def _in_raises_block(node: ast.AST, aliases: dict[str, str]) -> bool:
    """``node`` runs inside a ``with pytest.raises(...)`` / ``with self.assertRaises(...)``
    block of its own function (or of the module body)."""
    for parent in syntax.ancestors(node):
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return False
        if isinstance(parent, (ast.With, ast.AsyncWith)) and any(expects_error(i.context_expr, aliases) for i in parent.items):
            return True
    return False


def _seen_with_options(facts: FileFacts) -> list[KernelFact]:
    return [k for k in facts.kernels if k.decorator == "kernel" and k.module_options is not None]
