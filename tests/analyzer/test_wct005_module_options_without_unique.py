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


# A test that checks Warp raises: the decorator raises on purpose there (Warp's own tests do).
def _indented(spaces: int) -> str:
    return BODY.replace("    ", " " * spaces)


RAISING_TESTS = (
    "import unittest\n\nimport pytest\nfrom pytest import raises\n\nimport warp as wp\n\n\n"
    "def test_pytest_raises():\n"
    "    with pytest.raises(ValueError):\n"
    "        @wp.kernel(module_options={'max_unroll': 4})\n"
    "        def a(a: wp.array(dtype=float)):\n" + _indented(12) + "\n\n"
    "def test_pytest_raises_match():\n"
    "    with pytest.raises(ValueError, match='unique'):\n"
    "        @wp.kernel(module_options={'max_unroll': 4})\n"
    "        def b(a: wp.array(dtype=float)):\n" + _indented(12) + "\n\n"
    "def test_raises_from_pytest():\n"
    "    with raises(ValueError):\n"
    "        if True:\n"
    "            @wp.kernel(module_options={'max_unroll': 4})\n"
    "            def c(a: wp.array(dtype=float)):\n" + _indented(16) + "\n\n"
    "class TestOptions(unittest.TestCase):\n"
    "    def test_assert_raises(self):\n"
    "        with self.assertRaises(ValueError):\n"
    "            @wp.kernel(module_options={'max_unroll': 4})\n"
    "            def d(a: wp.array(dtype=float)):\n" + _indented(16) + "\n"
    "    def test_assert_raises_regex(self):\n"
    "        with self.assertRaisesRegex(ValueError, 'unique'):\n"
    "            @wp.kernel(module_options={'max_unroll': 4})\n"
    "            def e(a: wp.array(dtype=float)):\n" + _indented(16) + "\n\n"
    "def test_warp_style(test, device):\n"
    "    with test.assertRaisesRegex(ValueError, 'unique'):\n"
    "        @wp.kernel(module_options={'max_unroll': 4})\n"
    "        def f(a: wp.array(dtype=float)):\n" + _indented(12) + "\n\n"
    "with pytest.raises(ValueError):\n"
    "    @wp.kernel(module_options={'max_unroll': 4})\n"
    "    def g(a: wp.array(dtype=float)):\n" + _indented(12)
)


def test_silent_where_a_test_expects_the_error(tmp_path):
    assert _wct005(lint_files(tmp_path, {"tests/test_options.py": RAISING_TESTS})) == []


def test_the_same_kernels_outside_the_raises_block_are_reported(tmp_path):
    text = RAISING_TESTS
    for context in ("pytest.raises(ValueError)", "pytest.raises(ValueError, match='unique')", "raises(ValueError)",
                    "self.assertRaises(ValueError)", "self.assertRaisesRegex(ValueError, 'unique')",
                    "test.assertRaisesRegex(ValueError, 'unique')"):  # fmt: skip
        text = text.replace(f"with {context}:", "if True:")
    found = _wct005(lint_files(tmp_path, {"tests/test_options.py": text}))
    assert len(found) == 7 and all(f.fixes for f in found)


def test_silent_inside_raises_blocks_through_a_reexported_decorator(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/api.py": "import warp as wp\nfrom warp import kernel\n",
        "pkg/test_sim.py": (
            "import pytest\nimport warp as wp\nfrom pkg.api import kernel\n\n"
            "def test_raises():\n"
            "    with pytest.raises(ValueError):\n"
            "        @kernel(module_options={'max_unroll': 4})\n"
            "        def scale(a: wp.array(dtype=float)):\n" + _indented(12) + "\n"
            "def test_built():\n"
            "    @kernel(module_options={'max_unroll': 4})\n"
            "    def shift(a: wp.array(dtype=float)):\n" + _indented(12)
        ),
    }
    found = _wct005(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("pkg/test_sim.py", 13)]
