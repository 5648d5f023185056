"""The ast layer under the rules: parents, scopes, lookup, trigger prefilters, FileContext answers."""

from __future__ import annotations

import ast
import re
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warp_ct.analyzer import syntax, warp_stub
from warp_ct.analyzer.context import FileContext
from warp_ct.analyzer.exports import UNKNOWN, resolve_export
from warp_ct.analyzer.project import Project
from warp_ct.analyzer.rules import all_rules
from warp_ct.analyzer.rules.base import leading_literals, required_literals

from .helpers import write_files


def parse(source: str) -> ast.Module:
    tree = ast.parse(textwrap.dedent(source))
    syntax.attach_parents(tree)
    return tree


def load_names(tree: ast.AST, name: str) -> list[ast.Name]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]


def binding_lines(tree: ast.AST, name: str, occurrence: int = 0) -> list[int]:
    _scope, bindings = syntax.lookup(load_names(tree, name)[occurrence])
    return [b.lineno for b in bindings]


def test_every_node_has_its_parent_and_contexts_are_left_alone():
    tree = parse("x = f(a.b, [c for c in d])\n")
    order = syntax.attach_parents(tree)
    assert tree.parent is None
    for node in order[1:]:
        assert node in syntax.children(node.parent)
    assert not any(isinstance(node, ast.expr_context) for node in order)


def test_lookup_keeps_the_last_straight_line_binding_and_both_branches():
    tree = parse(
        """
        x = 1
        x = 2
        if c:
            y = 1
        else:
            y = 2
        def f():
            return x, y
        """
    )
    assert binding_lines(tree, "x") == [3]
    assert binding_lines(tree, "y") == [5, 7]


def test_lookup_sees_only_earlier_bindings_in_the_same_scope():
    tree = parse(
        """
        k = 1
        print(k)
        k = 2
        """
    )
    assert binding_lines(tree, "k") == [2]


def test_lookup_skips_class_bodies_from_methods_and_honours_global():
    tree = parse(
        """
        q = 0
        class K:
            q = 1
            def m(self):
                return q
        def g():
            global q
            q = 5
            return q
        """
    )
    assert binding_lines(tree, "q", 0) == [2]
    scope, _ = syntax.lookup(load_names(tree, "q")[1])
    assert isinstance(scope, ast.Module)


def test_decorators_and_defaults_are_looked_up_outside_the_function():
    tree = parse(
        """
        import functools as ft
        n = 3
        @ft.cache
        def f(n=n):
            return n
        """
    )
    decorator_base = tree.body[2].decorator_list[0].value
    assert isinstance(syntax.lookup(decorator_base)[1][0], ast.Import)
    default = tree.body[2].args.defaults[0]
    assert [b.lineno for b in syntax.lookup(default)[1]] == [3]
    assert isinstance(syntax.lookup(load_names(tree, "n")[-1])[1][0], ast.arg)


def test_comprehension_targets_are_local_to_the_comprehension():
    tree = parse("i = 9\nout = [i for i in range(3)]\n")
    use = tree.body[1].value.elt
    scope, bindings = syntax.lookup(use)
    assert isinstance(scope, ast.ListComp) and bindings[0].lineno == 2


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_every_rule_trigger_has_a_literal_prefilter(rule):
    for trigger in rule.triggers:
        assert required_literals(trigger), f"{rule.code}: {trigger!r} would scan every file with re"


def test_required_literals_shapes():
    assert required_literals(r"\b(?:ab|cd)\s*=") == {"ab", "cd"}
    assert required_literals(r"x?yz") == {"yz"}
    assert required_literals(r"(?:ab)?") is None
    assert required_literals(r"(?i)abc") is None
    assert required_literals(r"q(?i:abc)") == {"q"}
    assert required_literals(r"ab|\w+") is None
    assert leading_literals(r"\b(?:ab|cd)\s*=") == {"ab", "cd"}
    assert leading_literals(r"x?yz") is None
    assert leading_literals(r"^[ \t]+@kernel") is None


TRIGGERS = [t for rule in all_rules() for t in rule.triggers] + [r"x?yz", r"a(?:bc|d)e", r"(ab|c)+"]


@settings(max_examples=300, deadline=None)
@given(pattern=st.sampled_from(TRIGGERS), text=st.text(alphabet="abcdexyz_ @.=(\n\t'\"kernlmodustipf", max_size=60))
def test_prefilter_never_rules_out_a_match(pattern, text):
    literals = required_literals(pattern)
    match = re.search(pattern, text, re.MULTILINE)
    if match:
        assert literals is None or any(literal in text for literal in literals)
        leading = leading_literals(pattern)
        assert leading is None or any(text.startswith(word, match.start()) for word in leading)


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_triggers_answer_like_a_plain_search(rule):
    texts = [
        "import warp as wp\n",
        "x = 1\n    @wp.kernel\n    def k(): pass\n",
        "wp.config.enable_backward = True\n@wp.kernel(module='unique')\ndef k(): pass\n",
        "wp.set_module_options({'block_dim': 64})\nwp.launch(k, dim=1, block_dim=32)\n",
        "os.environ['WARP_CACHE_PATH'] = d\nwp.config.max_workers = 4\nm.options['x'] = 1\n",
        "a@b\nwp.overload(k, {})\nuse_precompiled_headers = False\nmodule_options={}\n",
    ]
    for text in texts:
        expected = any(re.search(t, text, re.MULTILINE) for t in rule.triggers) or not rule.triggers
        assert rule.triggered_by(text) == expected, text


def write_project(root, files: dict[str, str]) -> Project:
    """Files on disk (module names come from the package layout) and a Project of them."""
    write_files(root, files)
    project = Project()
    for name, text in files.items():
        project.add(str(root / name), text)
    return project


def context(source: str, path: str = "/proj/pkg/mod.py", module: str = "pkg.mod", project: Project | None = None):
    text = textwrap.dedent(source)
    tree = parse(text)
    return FileContext(path=path, text=text, module_name=module, tree=tree, project=project or Project())


def test_const_value_reads_plain_bindings_without_astroid_and_asks_it_for_expressions():
    ctx = context(
        """
        N = 64
        M = 2 * 32
        def f(k=8):
            return N, M, k
        """
    )
    n, m, k = ctx.tree.body[2].body[0].value.elts
    assert ctx.const_value(n) == 64
    assert ctx._astroid_tree is None  # no astroid tree for a plain constant
    assert ctx.const_value(k, None) is None  # a parameter is not one value
    assert ctx.const_value(m) == 64  # computed: astroid's inference
    assert ctx._astroid_tree is not None


def test_warp_names_through_aliases_and_relative_imports_inside_warp():
    ctx = context(
        """
        import warp as wp
        from .context import kernel
        k = wp.kernel
        k
        kernel
        """,
        path="/site/warp/_src/thing.py",
        module="warp._src.thing",
    )
    alias_use, relative_use = ctx.tree.body[3].value, ctx.tree.body[4].value
    assert ctx.warp_name(alias_use) == "warp.kernel"
    assert ctx.warp_name(relative_use) == "warp.kernel"  # warp._src.context.kernel, normalised
    assert ctx._astroid_tree is None


def test_names_from_modules_outside_the_project_are_not_inferred():
    ctx = context("from numpy import float32\nfloat32\n")
    assert ctx.warp_name(ctx.tree.body[1].value) is None
    assert ctx._astroid_tree is None


def test_def_head_range_and_astroid_twin():
    ctx = context(
        """
        import functools

        @functools.cache
        async def make(n):
            return n
        """
    )
    func = ctx.tree.body[1]
    rng = ctx.node_range(func)
    assert (rng.start.line, rng.start.character, rng.end.character) == (4, 0, 14)
    twin = ctx.astroid_node(func)
    assert twin is not None and twin.name == "make"
    assert ctx.ast_definition(twin) is func


def test_nodes_of_another_files_tree_resolve_against_that_file_and_are_never_inferred(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/sub/__init__.py": "",
        "pkg/sub/b.py": "from ..warpish import kernel\nfrom .helpers import thing\nkernel\nthing\n"
        "import warp as wp\n@wp.kernel\ndef k(): pass\n",
        "pkg/warpish.py": "import warp\nkernel = warp.kernel\n",
        "pkg/a.py": "x = 1\nkernel\nthing\n",
    }
    project = write_project(tmp_path, files)
    ctx = context(files["pkg/a.py"], path=str(tmp_path / "pkg/a.py"), module="pkg.a", project=project)
    other = project.ast_tree("pkg.sub.b")
    assert syntax.module_of(other.body[2]) == ("pkg.sub.b", False)
    ctx.warp_name(other.body[2].value)
    ctx.warp_name(other.body[3].value)
    assert ctx._astroid_tree is None  # positions of b.py must never be looked up in a.py's tree
    assert ctx.infer(other.body[2].value) == []
    assert ctx.kernel_decorator(other.body[5]) is not None  # b.py's own imports count
    assert project._imported_qnames == {}  # a refused inference is not shared as "not Warp"


def test_walk_is_in_source_order_decorators_first():
    tree = parse("@deco(a)\nclass K(Base):\n    @inner\n    def m(self) -> R:\n        body()\n")
    names = [n.id for n in syntax.attach_parents(tree) if isinstance(n, ast.Name)]
    assert names == ["deco", "a", "Base", "inner", "R", "body"]


def test_whole_tree_queries_match_a_fresh_walk():
    tree = parse("def f():\n    g(h(1))\nclass C:\n    def m(self):\n        return [k() for k in x]\n")
    walked = [n for n in ast.walk(tree) if isinstance(n, (ast.Call, ast.FunctionDef))]
    for _ in range(2):  # the second answer comes from the per-class list
        found = list(syntax.nodes_of_class(tree, (ast.Call, ast.FunctionDef)))
        assert sorted(map(id, found)) == sorted(map(id, walked))
        assert [n.lineno for n in found] == sorted(n.lineno for n in found)
    order = syntax.attach_parents(tree)
    syntax.detach_parents(order)
    assert not any(hasattr(n, "parent") for n in order) and not hasattr(tree, "_wct_index")


def test_warp_names_respect_shadowing_and_calls_to_filters_by_last_part():
    ctx = context(
        """
        import warp as wp
        import numpy as np
        def f(wp):
            wp.launch(k)
        def g():
            wp.launch(k)
            np.launch(k)
            wp.set_module_options({})
        """
    )
    order = syntax.attach_parents(ctx.tree)
    shadowed = ctx.tree.body[2].body[0].value
    launched = ctx.tree.body[3].body[0].value
    assert ctx.call_name(shadowed) is None  # the parameter, not the module
    assert ctx.call_name(launched) == "warp.launch"
    assert ctx.calls_to("warp.launch") == [launched]
    assert [c.lineno for c in ctx.calls_to("warp.set_module_options", "warp.launch")] == [7, 9]
    assert order


def test_reexported_warp_names_are_read_from_the_exporting_modules(tmp_path):
    warp_stub.install()  # what a Linter does first: inference sees a stub of warp
    files = {
        "pkg/__init__.py": "",
        "pkg/warpish.py": "import warp\nkernel = warp.kernel\nfrom warp import launch as go\ndef helper(): pass\n",
        "pkg/again.py": "from .warpish import kernel as k2, helper\n",
        "pkg/starry.py": "from .warpish import *\n",
        "pkg/a.py": "from .again import k2, helper\nfrom .warpish import go\nfrom .starry import kernel\nk2\nhelper\ngo\nkernel\n",
    }
    project = write_project(tmp_path, files)
    ctx = context(files["pkg/a.py"], path=str(tmp_path / "pkg/a.py"), module="pkg.a", project=project)
    k2, helper, go, starred = (stmt.value for stmt in ctx.tree.body[3:])
    assert [ctx.warp_name(k2), ctx.warp_name(helper), ctx.warp_name(go)] == ["warp.kernel", None, "warp.launch"]
    assert not ctx.used_astroid  # all three settled by the exporting modules' syntax
    assert ctx.warp_name(starred) == "warp.kernel"  # through the * import, in the star's source
    assert not ctx.used_astroid


def test_star_imports_and_computed_values_are_settled_by_the_syntax(tmp_path):
    files = {
        "pkg/__init__.py": "from . import sub\n",
        "pkg/sub.py": "import warp as wp\nBITS = 4\nMAX_ID = (1 << BITS) - 1\nkernel = wp.kernel\n",
        "pkg/star.py": "from .sub import *\nfrom numpy import *\n",
        "pkg/twice.py": (
            "import warp as wp\nif wp:\n    x = wp.kernel\nelse:\n    x = k()\n"
            "try:\n    from typing import override\nexcept ImportError:\n    from typing_extensions import override\n"
            "try:\n    from warp import kernel\nexcept ImportError:\n    kernel = wp.kernel\n"
            "@wp.func\ndef f(a: int):\n    return a\n@wp.func\ndef f(a: float):\n    return a\n"
            "TABLE = {'off': wp.DeterministicMode}\nFLEX = 24 if wp else 21\nLOW = np.iinfo(np.int64).min\n"
            "READY = not wp and helper()\nEITHER = wp.kernel or None\n"
        ),
    }
    project = write_project(tmp_path, files)
    assert resolve_export(project, "pkg.sub", "MAX_ID") is None  # arithmetic: no Warp API
    assert resolve_export(project, "pkg.sub", "BITS") is None
    assert resolve_export(project, "pkg.star", "kernel") == "warp.kernel"  # found in the star's source
    assert resolve_export(project, "pkg.star", "zeros") is None  # numpy's star: not a project module
    assert resolve_export(project, "pkg", "sub") is None  # ``from . import sub``: a module
    assert resolve_export(project, "pkg.twice", "x") == UNKNOWN  # a Warp API or not, by the branch
    assert resolve_export(project, "pkg.twice", "override") is None  # either import: not Warp's
    assert resolve_export(project, "pkg.twice", "kernel") == "warp.kernel"  # both bindings agree
    assert resolve_export(project, "pkg.twice", "f") is None  # overloads
    for name in ("TABLE", "FLEX", "LOW", "READY"):  # containers, computed values
        assert resolve_export(project, "pkg.twice", name) is None, name
    assert resolve_export(project, "pkg.twice", "EITHER") == UNKNOWN  # may be one of the operands


# ---------------------------------------------------------------------- scope tables vs symtable
# The compiler's own symbol tables are the oracle for which names each scope binds.
_SCOPE_KINDS = {ast.ListComp: "listcomp", ast.SetComp: "setcomp", ast.DictComp: "dictcomp", ast.GeneratorExp: "genexpr"}


def _scope_key(node: ast.AST) -> tuple[str, str, int]:
    if isinstance(node, ast.Module):
        return ("module", "top", 0)
    if isinstance(node, ast.ClassDef):
        return ("class", node.name, node.lineno)
    name = "lambda" if isinstance(node, ast.Lambda) else getattr(node, "name", None) or _SCOPE_KINDS[type(node)]
    return ("function", name, node.lineno)


def _our_local_names(tree: ast.Module) -> dict[tuple, list[list[str]]]:
    found: dict[tuple, list[list[str]]] = {}
    for scope in syntax.nodes_of_class(tree, syntax.SCOPE_TYPES):
        declared = syntax.declared_names(scope)
        names = sorted(n for n in syntax.scope_bindings(scope) if n not in declared)
        found.setdefault(_scope_key(scope), []).append(names)
    return {key: sorted(lists) for key, lists in found.items()}


def _symtable_local_names(source: str) -> dict[tuple, list[list[str]]]:
    import symtable

    found: dict[tuple, list[list[str]]] = {}

    def visit(table: symtable.SymbolTable) -> None:
        kind = str(getattr(table.get_type(), "value", table.get_type()))
        # symtable mangles ``__x`` in classes; the rules look names up unmangled.
        prefix = "_" + table.get_name().lstrip("_") + "__"
        names = sorted(
            "__" + s.get_name()[len(prefix) :] if s.get_name().startswith(prefix) else s.get_name()
            for s in table.get_symbols()
            if (s.is_assigned() or s.is_imported() or s.is_parameter())
            and (kind == "module" or not s.is_declared_global())
            and not s.is_nonlocal()
            and not s.get_name().startswith(".")  # the implicit ``.0`` iterator of a comprehension
        )
        key = ("module", "top", 0) if kind == "module" else (kind, table.get_name(), table.get_lineno())
        found.setdefault(key, []).append(names)
        for child in table.get_children():
            visit(child)

    visit(symtable.symtable(source, "<test>", "exec"))
    return {key: sorted(lists) for key, lists in found.items()}


SCOPE_SHAPES = '''
import os.path, warp as wp
from warp import kernel as k, config
from . import sibling
x: int
y: int = 1
(z := 2)
for i, (j, *rest) in pairs: pass
with open(p) as fh, ctx() as (u, v): pass
try: pass
except ValueError as err: pass
del os
def deco(f): return f
@deco
def f(a, /, b=(d := 1), *args, c, e=lambda q: q, **kw) -> (r := int):
    global g
    g = 1
    h = [m for m in range(3) if (w := m)]
    s = {n: o for n, o in items for t in n}
    gen = (p2 for p2 in a)
    def inner():
        nonlocal h
        h = 2
        return lambda lam=1: lam
    class C(base := object, metaclass=type):
        attr = 1
        __private = 2
        def method(self): return __class__
    match a:
        case {"k": kv, **others}: pass
        case [first, *tail] | (first, *tail): pass
        case Point(x=px) as pt: pass
        case _: pass
    async def co():
        async for ai in aiter_: pass
        async with actx as av: pass
        return [await aw for aw in ai]
    return inner
class Outer:
    def method(self):
        import json as js
        return js
from os import *
'''


def test_scope_tables_match_the_compilers_symbol_tables():
    tree = parse(SCOPE_SHAPES)
    assert _our_local_names(tree) == _symtable_local_names(textwrap.dedent(SCOPE_SHAPES))


hypothesmith = pytest.importorskip("hypothesmith")


@settings(max_examples=40, deadline=None, derandomize=True)
@given(hypothesmith.from_grammar())
def test_scope_tables_match_symtable_on_generated_python(source: str):
    try:
        tree = ast.parse(source)
        expected = _symtable_local_names(source)
    except (SyntaxError, ValueError, RecursionError):
        return
    syntax.attach_parents(tree)
    assert _our_local_names(tree) == expected


def test_type_parameters_and_aliases_become_what_an_older_python_parses():
    text = (
        "type Vector = list[float]  # alias\n"
        "type Pair[T] = tuple[T, T]\n"
        "type = 3\n"
        "x = type(3)\n"
        "class Energy[T: (int, float)](Base):\n"
        "    def fun[S](self, x: S) -> S:\n"
        "        return 'def f[T](x)'\n"
        "def g[*Ts, **P](a): pass\n"
    )
    older = syntax.without_type_params(text)
    assert older is not None
    assert older.splitlines() == [
        "Vector      = list[float]  # alias",
        "Pair         = tuple[T, T]",
        "type = 3",
        "x = type(3)",
        "class Energy                 (Base):",
        "    def fun   (self, x: S) -> S:",
        "        return 'def f[T](x)'",
        "def g          (a): pass",
    ]
    tree = ast.parse(older)  # every other node keeps its line and column
    assert sorted((n.name, n.lineno, n.col_offset) for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)) == [
        ("fun", 6, 4), ("g", 8, 0)]  # fmt: skip
    assert syntax.without_type_params("x = [1]\ndef f(a): pass\n") is None
    assert syntax.without_type_params("def f[\n    T,\n](a): pass\n") is None  # over several lines: not rewritten
