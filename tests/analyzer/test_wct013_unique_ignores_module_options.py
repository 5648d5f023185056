"""WCT013 unique-ignores-module-options."""

from __future__ import annotations

import ast

from warp_ct.analyzer.fixes import apply_fixes

from warp_ct.analyzer.engine import Linter
from warp_ct.config import load_config

from .helpers import lint_files, lint_snippet, rule_filter, write_files

BODY = "(x: wp.array(dtype=float)):\n    x[wp.tid()] = 0.0\n"


_only = rule_filter("WCT013")


def test_unique_kernels_without_the_files_options(tmp_path):
    text = (
        "import warp as wp\n"
        "wp.set_module_options({'enable_backward': False, 'max_unroll': 4})\n"
        "@wp.kernel(module='unique')\ndef a" + BODY +  # 3
        "@wp.kernel(module='unique', enable_backward=False)\ndef b" + BODY +  # 6: max_unroll missing
        "@wp.kernel(module='unique', module_options={'enable_backward': False, 'max_unroll': 4})\ndef c" + BODY +
        "@wp.kernel\ndef d" + BODY +  # shares the file's module: gets the options
        "def factory(n):\n    @wp.kernel(module='unique')\n    def e" + BODY.replace("\n    x", "\n        x") +  # 16
        "    return e\n"
    )
    found = _only(lint_snippet(tmp_path, text, name="sim.py"))
    assert [f.line for f in found] == [3, 6, 16]
    assert '"enable_backward", "max_unroll"' in found[0].message and "backward code" in found[0].message
    assert '"max_unroll"' in found[1].message and "enable_backward" not in found[1].message.split("(line")[1]
    out = apply_fixes(text, found, unsafe=True).text
    ast.parse(out)
    assert "@wp.kernel(module='unique', module_options={'enable_backward': False, 'max_unroll': 4})\ndef a" in out
    assert "@wp.kernel(module='unique', enable_backward=False, module_options={'max_unroll': 4})\ndef b" in out


def test_merges_into_existing_module_options(tmp_path):
    text = (
        "import warp as wp\nwp.set_module_options({'fast_math': True})\n"
        "@wp.kernel(\n    module='unique',\n    module_options={'max_unroll': 1},\n)\ndef a" + BODY
    )
    found = _only(lint_snippet(tmp_path, text, name="sim.py"))
    assert [f.line for f in found] == [3]
    out = apply_fixes(text, found, unsafe=True).text
    assert "module_options={'max_unroll': 1, 'fast_math': True}" in out


def test_silent_cases(tmp_path):
    # options targeted at another module; no options at all; unique kernel passes computed options
    text = (
        "import warp as wp\nOPTS = {'enable_backward': False}\n"
        "wp.set_module_options({'enable_backward': False}, module='other.mod')\n"
        "@wp.kernel(module='unique')\ndef a" + BODY +
        "@wp.kernel(module='unique', module_options=OPTS)\ndef b" + BODY
    )
    assert _only(lint_snippet(tmp_path, text, name="sim.py")) == []
    computed = (
        "import warp as wp\nOPTS = {'enable_backward': False}\nwp.set_module_options(OPTS)\n"
        "@wp.kernel(module='unique', module_options=OPTS)\ndef a" + BODY
    )
    assert _only(lint_snippet(tmp_path / "c", computed, name="sim.py")) == []


def test_non_literal_file_options_reported_without_fix(tmp_path):
    text = "import warp as wp\nOPTS = {'enable_backward': False}\nwp.set_module_options(OPTS)\n@wp.kernel(module='unique')\ndef a" + BODY
    found = _only(lint_snippet(tmp_path, text, name="sim.py"))
    assert [(f.line, len(f.fixes)) for f in found] == [(4, 0)]


def test_only_options_that_differ_and_severity(tmp_path):
    # shaped like a physics engine: kernels pass enable_backward=False themselves but not grid-stride
    text = (
        "import warp as wp\nfrom warp_ext import cache_kernel\n"
        "wp.set_module_options({'enable_backward': False, 'default_grid_stride': False, 'fast_math': False})\n"
        "@cache_kernel\ndef make(n: int):\n"
        "    @wp.kernel(module='unique', enable_backward=False)\n"  # 6
        "    def kernel(x: wp.array(dtype=float)):\n        x[wp.tid()] = float(n)\n"
        "    return kernel\n"
        "@wp.kernel(module='unique')\ndef g" + BODY  # 10: backward missing
    )
    found = _only(lint_snippet(tmp_path, text, name="solver.py"))
    assert [(f.line, f.severity.label) for f in found] == [(6, "info"), (10, "warning")]
    assert "fast_math" not in found[0].message and "default_grid_stride" in found[0].message


def test_grid_stride_keyword_covers_default_grid_stride(tmp_path):
    text = (
        "import warp as wp\nwp.set_module_options({'enable_backward': False, 'default_grid_stride': False})\n"
        "@wp.kernel(module='unique', grid_stride=False)\ndef m" + BODY
    )
    found = _only(lint_snippet(tmp_path, text, name="support.py"))
    assert len(found) == 1 and "default_grid_stride" not in found[0].message and found[0].severity.label == "warning"


def test_file_block_dim_that_every_launch_passes_is_not_missed(tmp_path):
    text = (
        "import warp as wp\n\nwp.set_module_options({'block_dim': 128})\n\n"
        "@wp.kernel(module='unique')\ndef tiled(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n\n"
        "def run(x):\n    wp.launch_tiled(tiled, dim=[1], inputs=[x], block_dim=64)\n"
    )
    assert [f for f in lint_files(tmp_path / "a", {"m.py": text}) if f.rule == "WCT013"] == []
    omitted = text.replace(", block_dim=64", "")
    assert [f.line for f in lint_files(tmp_path / "b", {"m.py": omitted}) if f.rule == "WCT013"] == [5]


def test_judged_from_the_facts_without_a_tree(tmp_path):
    # Multi-line decorator and call, non-ASCII text before them on their lines: the query
    # reads both from their spans and must put the fix where a tree would.
    text = (
        "import warp as wp\n"
        "wp.set_module_options(  # réglages\n    {'enable_backward': False,\n     'lineinfo': True},\n)\n"
        "ü = 1; k = wp.kernel(module='unique')\n"
        "@wp.kernel(\n    module='unique',  # é\n    module_options={'lineinfo': True},\n)\ndef a" + BODY
    )
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/sim.py": text})
    linter = Linter(load_config(tmp_path))
    found = _only([f for r in linter.lint_paths([str(tmp_path)]) for f in r.findings])
    path = str(tmp_path / "pkg" / "sim.py")
    assert linter.active_rules(path, text) == []  # no tree for this file
    assert [(f.line, f.range.start.character) for f in found] == [(7, 1)]
    assert '(line 2: "enable_backward")' in found[0].message
    out = apply_fixes(text, found, unsafe=True).text
    assert "module_options={'lineinfo': True, 'enable_backward': False},\n)\ndef a" in out


def test_a_reexported_decorator_is_the_tree_checks(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/api.py": "import warp as wp\nfrom warp import kernel\n",
        "pkg/sim.py": (
            "import warp as wp\nfrom pkg.api import kernel\n"
            "wp.set_module_options({'enable_backward': False})\n"
            "@kernel(module='unique')\ndef a" + BODY + "@wp.kernel(module='unique')\ndef b" + BODY
        ),
    }
    found = _only(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("pkg/sim.py", 4), ("pkg/sim.py", 7)]  # each once


def _factory(own_options: str) -> str:
    # newton's VBD factories: the unique kernel's own module gets the file's options by hand.
    return (
        "import functools\n\nimport warp as wp\n\nwp.set_module_options({'enable_backward': False})\n\n\n"
        "@functools.cache\ndef make():\n    @wp.kernel(module='unique')\n    def k" + BODY.replace("\n    x", "\n        x")
        + f"\n    wp.set_module_options({own_options}, module=k.module)\n    return k\n"
    )


def test_options_set_on_the_kernels_own_module_reach_it(tmp_path):
    assert _only(lint_snippet(tmp_path, _factory("{'enable_backward': False}"))) == []
    other = _only(lint_snippet(tmp_path, _factory("{'max_unroll': 4}")))
    assert [f.line for f in other] == [10] and '"enable_backward"' in other[0].message
    assert _only(lint_snippet(tmp_path, _factory("OPTIONS"))) == []  # options it cannot read: silent


def test_options_set_on_the_kernels_own_module_reach_it_in_the_tree_check(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/api.py": "import warp as wp\nfrom warp import kernel\n",
        "pkg/sim.py": _factory("{'enable_backward': False}").replace(
            "import warp as wp\n", "import warp as wp\nfrom pkg.api import kernel\n", 1
        ).replace("@wp.kernel(module='unique')", "@kernel(module='unique')"),
    }
    assert _only(lint_files(tmp_path, files)) == []
