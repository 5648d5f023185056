"""WCT004 get-module-in-set-options."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from warp_ct.analyzer.context import FileContext
from warp_ct.analyzer.model import Applicability, Severity
from warp_ct.analyzer.rules.base import Rule

if TYPE_CHECKING:
    from warp_ct.analyzer.project import FileSummary, Project


class GetModuleInSetOptions(Rule):
    code = "WCT004"
    name = "get-module-in-set-options"
    severity = Severity.WARNING
    summary = "`wp.set_module_options(..., module=wp.get_module(...))` does not work on Warp 1.16 and older"
    fix_applicability = Applicability.SAFE
    triggers = (r"set_module_options",)
    docs = '''
    ## What it does
    Flags `wp.set_module_options(options, module=wp.get_module(name))` when the project
    supports Warp 1.16 or older (its `warp-lang>=` requirement, or
    `target-warp-version` in `[tool.warp-ct]`). Newer Warp accepts a `wp.Module` there,
    so the rule is silent when the oldest supported Warp is 1.17 or newer.

    ## Why it costs compile time
    Up to Warp 1.16, `set_module_options` reads `module.__name__`, so `module=` must be
    a Python module object. A `wp.Module` has no `__name__`: the call raises
    `AttributeError` instead of configuring the module, and code that catches the error
    (or never reaches this line in a quick test) compiles the module with its defaults,
    backward code and all. `wp.get_module(name).options.update(...)` works on every
    version.

    ## Example
    ```python
    # file: pyproject.toml
    [project]
    name = "sim"
    dependencies = ["warp-lang>=1.15"]
    # file: sim.py
    import warp as wp

    wp.set_module_options({"enable_backward": False}, module=wp.get_module("sim.kernels"))  # WCT004
    ```

    ## Use instead
    ```python
    # file: pyproject.toml
    [project]
    name = "sim"
    dependencies = ["warp-lang>=1.15"]
    # file: sim.py
    import warp as wp

    wp.get_module("sim.kernels").options.update({"enable_backward": False})
    ```

    ## When not to apply
    On Warp 1.17 and newer both spellings work:
    ```python
    # file: pyproject.toml
    [tool.warp-ct]
    target-warp-version = "1.17"
    # file: sim.py
    import warp as wp

    wp.set_module_options({"enable_backward": False}, module=wp.get_module("sim.kernels"))
    ```
    The fix changes the options in place, exactly like `set_module_options` does on a
    module that was not loaded yet; after a load, prefer setting options before the first
    launch anyway.
    '''

    def needs_tree(self, summary: "FileSummary", project: "Project") -> bool:
        version = project.target_warp_version
        return version is not None and tuple(version[:2]) <= (1, 16) and "get_module" in summary.text

    def visit_call(self, node: ast.Call, ctx: FileContext) -> None:
        if not ctx.version_at_most(1, 16):
            return
        if ctx.call_name(node) != "warp.set_module_options":
            return
        module_arg = ctx.keyword(node, "module", 1)
        if not isinstance(module_arg, ast.Call) or ctx.call_name(module_arg) != "warp.get_module":
            return
        options = ctx.keyword(node, "options", 0)
        fixes = []
        if options is not None and not any(isinstance(a, ast.Starred) for a in node.args) and not any(
            kw.arg is None for kw in node.keywords or []
        ):
            new_text = f"{ctx.source_of(module_arg)}.options.update({ctx.source_of(options)})"
            fixes.append(ctx.fix("Use `wp.get_module(...).options.update(...)`", ctx.replace_node(node, new_text)))
        version = ".".join(str(p) for p in (ctx.target_warp_version or ())[:2])
        ctx.report(
            node,
            f"On Warp 1.16 and older (this project targets {version}) `set_module_options` reads "
            "`module.__name__`, which a `wp.Module` does not have: this call raises AttributeError and "
            "the options never reach the module. Use `wp.get_module(name).options.update(...)`.",
            fixes=fixes,
        )
