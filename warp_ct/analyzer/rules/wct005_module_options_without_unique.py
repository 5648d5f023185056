"""WCT005 module-options-without-unique."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from warp_ct.analyzer.context import FileContext
from warp_ct.analyzer.model import Applicability, Severity
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
    '''

    def needs_tree(self, summary: "FileSummary", project: "Project") -> bool:
        kernels = [k for k in project.facts(summary).kernels if k.module_options is not None]
        # No kernel in the facts has options: the text's ``module_options=`` may sit on a
        # decorator the facts cannot name (re-exported through a project module).
        return not kernels or any(k.module is None for k in kernels)

    def visit_functiondef(self, node: ast.FunctionDef, ctx: FileContext) -> None:
        decorator = ctx.kernel_decorator(node)
        if decorator is None or decorator.call is None:
            return
        options = decorator.keywords.get("module_options")
        if options is None or decorator.is_unique:
            return
        if "module" in decorator.keywords:
            return  # module=<something computed>: cannot tell statically
        keyword = next(kw for kw in decorator.call.keywords if kw.arg == "module_options")
        fix = ctx.fix(
            'Add `module="unique"`',
            ctx.insert_at(*_start(ctx, keyword), 'module="unique", '),
        )
        ctx.report(
            keyword,
            '`module_options=` needs `module="unique"`: Warp raises ValueError at import without it',
            fixes=[fix],
        )


def _start(ctx: FileContext, node: ast.AST) -> tuple[int, int]:
    rng = ctx.node_range(node)
    return rng.start.line, rng.start.character
