"""WCT005 module-options-without-unique: a query over the facts, the tree for what they cannot name."""

from __future__ import annotations

from warp_ct.analyzer.fixes import apply_fixes

from .helpers import lint_files, rule_filter

_wct005 = rule_filter("WCT005")

BODY = "    i = wp.tid()\n    a[i] = a[i] * 2.0\n"


def test_reported_on_the_keyword_with_a_safe_fix(tmp_path):
    text = (
        "import warp as wp\n\n"
        "@wp.kernel(enable_backward=False, module_options={'max_unroll': 4})\n"
        "def scale(a: wp.array(dtype=float)):\n" + BODY
    )
    found = _wct005(lint_files(tmp_path, {"sim.py": text}))
    assert [(f.line, f.range.start.character, f.range.end.character) for f in found] == [(3, 34, 66)]
    assert "ValueError" in found[0].message and found[0].fixes[0].is_safe
    fixed = apply_fixes(text, found).text
    assert "@wp.kernel(enable_backward=False, module=\"unique\", module_options={'max_unroll': 4})\n" in fixed
    assert _wct005(lint_files(tmp_path, {"sim.py": fixed})) == []


def test_kernels_made_in_factories_and_methods(tmp_path):
    text = (
        "import warp as wp\n\n"
        "def make(opts):\n"
        "    @wp.kernel(module_options=opts)\n"
        "    def scale(a: wp.array(dtype=float)):\n" + BODY.replace("    ", "        ") + "    return scale\n\n"
        "class Layer:\n"
        "    @wp.kernel(module_options={'lineinfo': True})\n"
        "    def shift(a: wp.array(dtype=float)):\n" + BODY.replace("    ", "        ")
    )
    assert [f.line for f in _wct005(lint_files(tmp_path, {"sim.py": text}))] == [4, 11]


def test_silent_with_a_module_or_on_functions(tmp_path):
    text = (
        "import warp as wp\n\n"
        "@wp.kernel(module='unique', module_options={'max_unroll': 4})\n"
        "def a(a: wp.array(dtype=float)):\n" + BODY + "\n"
        "def make(module):\n"
        "    @wp.kernel(module=module, module_options={'max_unroll': 4})\n"
        "    def b(a: wp.array(dtype=float)):\n" + BODY.replace("    ", "        ") + "    return b\n\n"
        "@wp.func(module_options={'max_unroll': 4})\n"
        "def c(x: float):\n    return x\n\n"
        "def configure(module_options={'max_unroll': 4}):\n    return module_options\n"
    )
    assert _wct005(lint_files(tmp_path, {"sim.py": text})) == []


def test_decorator_reexported_by_a_project_module_is_read_from_the_tree(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/api.py": "import warp as wp\nfrom warp import kernel\n",
        "pkg/sim.py": (
            "import warp as wp\nfrom pkg.api import kernel\n\n"
            "@kernel(module_options={'max_unroll': 4})\n"
            "def scale(a: wp.array(dtype=float)):\n" + BODY + "\n"
            "@wp.kernel(module_options={'max_unroll': 2})\n"
            "def shift(a: wp.array(dtype=float)):\n" + BODY
        ),
    }
    found = _wct005(lint_files(tmp_path, files))
    assert sorted((f.path, f.line) for f in found) == [("pkg/sim.py", 4), ("pkg/sim.py", 9)]  # each once
