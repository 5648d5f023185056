"""WCT012 pch-disabled."""

from __future__ import annotations

import ast

from warp_ct.analyzer.context import FileContext
from warp_ct.analyzer.model import Applicability, Severity
from warp_ct.analyzer.rules.base import Rule
from warp_ct.analyzer.rules.wct008_cache_destroyed import (
    assigned_warp_name,
    deliberate_reason,
    is_test_harness,
    removal_fix,
    restored_in_scope,
)

_SETTING = "use_precompiled_headers"


class PchDisabled(Rule):
    code = "WCT012"
    name = "pch-disabled"
    severity = Severity.WARNING
    summary = "`wp.config.use_precompiled_headers = False` makes every CPU module compile Warp's headers again"
    fix_applicability = Applicability.UNSAFE
    triggers = (r"use_precompiled_headers",)
    docs = '''
    ## What it does
    Flags `wp.config.use_precompiled_headers = False` (through any name `warp.config` is
    imported as).

    ## Why it costs compile time
    A CPU module includes Warp's large native headers. With precompiled headers (the
    default) the headers are parsed once per process and every further module reuses
    them: the first CPU module costs a few seconds, each further small module a fraction
    of a second. Without them every module parses the headers itself, about 1.3–1.5 s per
    module on a small machine. A program with more than one or two CPU modules gets
    slower. The option does nothing for CUDA builds.

    ## Example
    ```python
    import warp as wp

    wp.config.use_precompiled_headers = False  # WCT012

    @wp.kernel
    def scale(a: wp.array(dtype=float), s: float):
        i = wp.tid()
        a[i] = a[i] * s
    ```

    ## Use instead
    Keep the default. If you turned it off because of a measured problem (one tiny CPU
    module in a short-lived process, or a compiler that rejects the header), measure a
    cold run both ways first, e.g. with `warp-ct probe measure`, and keep the setting
    only if it wins:
    ```python
    import warp as wp

    @wp.kernel
    def scale(a: wp.array(dtype=float), s: float):
        i = wp.tid()
        a[i] = a[i] * s
    ```

    ## When not to apply
    A scoped override that puts the old value back in the same function (typical in a
    test of the header-less path) is not reported; in test code the setting is reported
    only as information:
    ```python
    import warp as wp

    def build_without_pch(module):
        saved = wp.config.use_precompiled_headers
        wp.config.use_precompiled_headers = False
        try:
            wp.load_module(module, device="cpu")
        finally:
            wp.config.use_precompiled_headers = saved
    ```
    '''

    def visit_assign(self, node: ast.Assign, ctx: FileContext) -> None:
        if len(node.targets) != 1:
            return
        target = node.targets[0]
        # Cheap shape checks first: only ``<...>.use_precompiled_headers = <falsy constant>``
        # can name the setting (warp_name keeps the last attribute).
        if not (isinstance(target, ast.Attribute) and target.attr == _SETTING):
            return
        value = node.value
        if not (isinstance(value, ast.Constant) and value.value is not None and not value.value):
            return
        if assigned_warp_name(target, ctx) != "warp.config.use_precompiled_headers":
            return
        if restored_in_scope(node, target, ctx):
            return
        message = (
            "precompiled headers are turned off: every CPU module parses Warp's headers again "
            "(about a second or more per module); measure a cold run with and without this line before keeping it"
        )
        reason = deliberate_reason(node, ctx) or ("this is test code" if is_test_harness(ctx.project.path_in_project(ctx.path)) else None)
        if reason is not None:
            ctx.report(node, f"{message} (this looks deliberate: {reason})", severity=Severity.INFO)
            return
        fix = removal_fix(ctx, node, "Remove the assignment (restore the default)")
        ctx.report(node, message, fixes=[fix] if fix else [])

