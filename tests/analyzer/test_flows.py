"""flows: which nodes each flow holds (flow_index), and which ``module=`` arguments are worth
asking astroid about (module_ref)."""

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


def flows_of(source: str) -> dict[str, list[str]]:
    """Flow owner -> the calls (by callee name) and defs/classes (by name) in it."""
    text = textwrap.dedent(source)
    tree = ast.parse(text)
    syntax.attach_parents(tree)
    ctx = FileContext(path="/proj/m.py", text=text, module_name="m", tree=tree, project=Project())
    index = flows.flow_index(ctx)
    labels = {}
    for owner, items in index.flows:
        names = []
        for node in items:
            if isinstance(node, ast.Call):
                names.append(flows.callee_label(node) or "?")
            elif not isinstance(node, ast.Assign):
                names.append(node.name)
        labels["<module>" if owner is tree else owner.name] = names
    assert list(labels) == ["<module>", *(f.name for f in index.functions)]  # every def, in source order
    return labels


def test_each_node_sits_in_the_flow_that_runs_it():
    found = flows_of(
        """
        @deco_a(arg_a())
        def outer(x=default_a(), *, y=kw_default(), z: note() = 1) -> returns():
            inner_call()
            f = lambda q=lambda_default(): lambda_body()
            class InFunction(base_b()):
                hidden()
                def method(self):
                    in_method()
            def nested():
                in_nested()
            after()
        class AtModule(base_c()):
            in_class_body()
            class Deeper:
                deeper_body()
        top({key(): value(), other_key(): other_value()})
        """
    )
    assert found == {
        "<module>": ["outer", "deco_a", "arg_a", "default_a", "AtModule", "in_class_body", "Deeper", "deeper_body",
                     "top", "key", "other_key", "value", "other_value"],
        "outer": ["inner_call", "lambda_default", "InFunction", "nested", "after"],
        "method": ["in_method"],
        "nested": ["in_nested"],
    }  # fmt: skip
