"""flows.module_ref: which ``module=`` arguments are worth asking astroid about."""

from __future__ import annotations

import ast
import textwrap

from warp_ct.analyzer import flows, syntax
from warp_ct.analyzer.context import FileContext
from warp_ct.analyzer.project import Project


def refs(source: str) -> tuple[list[str | None], bool]:
    text = textwrap.dedent(source)
    tree = ast.parse(text)
    syntax.attach_parents(tree)
    ctx = FileContext(path="/proj/m.py", text=text, module_name="m", tree=tree, project=Project())
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "set_module_options"]
    calls.sort(key=lambda c: c.lineno)
    return [flows.module_ref(ctx, ctx.keyword(c, "module", 1)) for c in calls], ctx.used_astroid


def test_run_time_values_are_not_inferred():
    found, used_astroid = refs(
        """
        import sys
        import warp as wp
        THIS = sys.modules[__name__]
        def f(module, kernel):
            wp.set_module_options({}, module)
            wp.set_module_options({}, kernel.module)
            wp.set_module_options({}, THIS)
            wp.set_module_options({}, module=__name__)
            wp.set_module_options({}, module="pkg.mod")
        """
    )
    assert found == [None, None, None, "m", "pkg.mod"]
    assert not used_astroid


def test_an_imported_module_is_inferred():
    found, used_astroid = refs(
        """
        import json as j
        import warp as wp
        alias = j
        wp.set_module_options({}, module=alias)
        """
    )
    assert found == ["json"]
    assert used_astroid
