"""The skeleton a batch extracts facts from: module-level kernel bodies left out, facts unchanged."""

from __future__ import annotations

import textwrap

import pytest

from warp_ct.analyzer.facts import extract, parse_for_facts, parse_source
from warp_ct.analyzer.skeleton import skeleton


def _facts_both_ways(text: str):
    whole = extract("pkg/mod.py", text, "pkg.mod", False)
    tree, problem, blanked = parse_for_facts(text, "pkg/mod.py")
    cut = extract("pkg/mod.py", text, "pkg.mod", False, tree=tree, problem=problem, blanked=blanked)
    return whole, cut, blanked


LAYOUTS = {
    "one-line signature": """
        import warp as wp

        @wp.kernel
        def scale(a: wp.array(dtype=float), s: float):
            i = wp.tid()
            a[i] = a[i] * s

        def run(n):
            wp.launch(scale, dim=n, inputs=[None, 2.0])
    """,
    "signature and decorator over several lines, comments in the body": """
        import warp as wp
        from typing import Any

        @wp.kernel(
            enable_backward=False,
        )
        def gather(
            src: wp.array(dtype=Any),  # any dtype
            dst: wp.array(dtype=Any),
        ):
            i = wp.tid()
        # a comment at column 0 inside the body
            dst[i] = src[i]  # copy

            # trailing comment
        x = 1
    """,
    "warp functions and a kernel calling them": """
        import warp as wp

        @wp.func
        def square(x: float) -> float:
            return x * x

        @wp.kernel
        def k(a: wp.array(dtype=float)):
            a[wp.tid()] = square(a[wp.tid()])
    """,
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_facts_from_the_skeleton_are_the_facts_of_the_text(layout):
    text = textwrap.dedent(LAYOUTS[layout])
    whole, cut, blanked = _facts_both_ways(text)
    assert blanked, "the layout is one the skeleton cuts"
    assert repr(cut) == repr(whole)


def test_the_skeleton_keeps_every_line_and_offset_outside_the_bodies():
    text = textwrap.dedent(LAYOUTS["signature and decorator over several lines, comments in the body"])
    cut, ends = skeleton(text)
    assert cut.count("\n") == text.count("\n")
    original, blanked = text.split("\n"), cut.split("\n")
    assert blanked[-2] == original[-2] == "x = 1"
    assert ends == {8: (14, len("    dst[i] = src[i]"))}
    tree, _ = parse_source(text, "m.py")
    kernel = tree.body[2]
    assert (kernel.end_lineno, kernel.end_col_offset) == ends[8]


@pytest.mark.parametrize(
    "text",
    [
        # A body whose last line is a string, and one of a single line: kept.
        '@wp.kernel\ndef k(a: int):\n    """doc"""\n',
        "@wp.kernel\ndef k(a: int): pass\n",
        # A string in the signature: its brackets are not code.
        '@wp.kernel\ndef k(a: "wp.array(dtype=float"):\n    x = 1\n    y = 2\n',
        # Windows line ends are left alone.
        "@wp.kernel\r\ndef k(a: int):\r\n    x = 1\r\n    y = 2\r\n",
    ],
)
def test_unusual_layouts_keep_their_bodies(text):
    assert skeleton(text) is None


def test_a_column_0_line_inside_a_body_string_falls_back_to_the_whole_text():
    text = textwrap.dedent('''
        import warp as wp

        @wp.kernel
        def k(a: wp.array(dtype=float)):
            s = """
        text at column 0
        """
            a[0] = 1.0

        def host():
            wp.launch(k, dim=1, inputs=[None])
    ''')
    whole, cut, blanked = _facts_both_ways(text)
    assert not blanked  # the cut text does not parse: the text was read whole
    assert repr(cut) == repr(whole)


def test_a_decorator_named_kernel_that_is_not_warps_keeps_the_body_read():
    # ``numba.cuda``-style or a project's own ``kernel`` decorator: its body's calls matter.
    text = textwrap.dedent("""
        import warp as wp
        from mylib import kernel

        @kernel
        def helper(n):
            wp.set_module_options({"enable_backward": False})
            return run_more(n)
    """)
    whole, cut, _blanked = _facts_both_ways(text)
    assert repr(cut) == repr(whole)
    assert cut.functions["helper"].calls  # the body was read


def test_kernels_made_inside_functions_keep_their_captures():
    text = textwrap.dedent("""
        import warp as wp

        def make(scale):
            @wp.kernel
            def k(a: wp.array(dtype=float)):
                a[wp.tid()] = scale
            return k
    """)
    whole, cut, blanked = _facts_both_ways(text)
    assert not blanked
    assert cut.kernels[0].captures == ("scale",) == whole.kernels[0].captures


def test_a_syntax_error_outside_the_bodies_is_the_texts_own():
    text = "import warp as wp\n\n@wp.kernel\ndef k(a: int):\n    x = 1\n    y = 2\n\ndef broken(:\n    pass\n"
    tree, problem, blanked = parse_for_facts(text, "m.py")
    assert tree is None and not blanked
    assert problem == parse_source(text, "m.py")[1]
