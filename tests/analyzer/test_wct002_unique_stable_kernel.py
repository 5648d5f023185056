"""WCT002 unique-stable-kernel: module-scope unique kernels launched together."""

from __future__ import annotations

from warp_ct.analyzer.fixes import apply_fixes

from .helpers import lint_snippet, rule_filter


def _kernel(name, deco='@wp.kernel(module="unique")'):
    return f"\n{deco}\ndef {name}(x: wp.array(dtype=float)):\n    i = wp.tid()\n    x[i] = x[i] * 2.0\n"


_wct002 = rule_filter("WCT002")


def test_unique_kernels_launched_together(tmp_path):
    text = "import warp as wp\n" + _kernel("a") + _kernel("b") + (
        "\ndef step(x):\n    wp.launch(a, dim=x.shape, inputs=[x])\n    wp.launch(b, dim=x.shape, inputs=[x])\n"
    )
    found = _wct002(lint_snippet(tmp_path, text))
    assert [f.line for f in found] == [3, 8]
    assert "`b`" in found[0].message and "step()" in found[0].message
    assert all(not f.fixes[0].is_safe for f in found)
    fixed = apply_fixes(text, found, unsafe=True).text
    assert 'module="unique"' not in fixed and fixed.count("@wp.kernel\n") == 2


def test_fix_keeps_other_arguments(tmp_path):
    text = "import warp as wp\n" + _kernel("a", '@wp.kernel(launch_bounds=256, module="unique")') + _kernel("b", "@wp.kernel") + (
        "\ndef step(x):\n    wp.launch(a, dim=x.shape, inputs=[x])\n    wp.launch(b, dim=x.shape, inputs=[x])\n"
    )
    found = _wct002(lint_snippet(tmp_path, text))
    assert [f.line for f in found] == [3]
    assert "@wp.kernel(launch_bounds=256)\n" in apply_fixes(text, found, unsafe=True).text


def test_different_block_dims_keep_modules_apart(tmp_path):
    # warp/tests/tile: unique kernels launched at a block_dim other than their neighbours'.
    text = "import warp as wp\n" + _kernel("a") + _kernel("b") + (
        "\ndef step(x):\n    wp.launch(a, dim=x.shape, inputs=[x])\n"
        "    wp.launch_tiled(b, dim=1, inputs=[x], block_dim=64)\n"
    )
    assert _wct002(lint_snippet(tmp_path, text)) == []


def test_granular_library_file_is_not_reported(tmp_path):
    # warp/_src/sparse.py: many unique kernels, each API function uses a few.
    text = "import warp as wp\n" + _kernel("a") + _kernel("b") + _kernel("c") + (
        "\ndef op1(x):\n    wp.launch(a, dim=x.shape, inputs=[x])\n    wp.launch(b, dim=x.shape, inputs=[x])\n"
        "\ndef op2(x):\n    wp.launch(c, dim=x.shape, inputs=[x])\n"
    )
    assert _wct002(lint_snippet(tmp_path, text)) == []


def test_own_options_and_single_kernel(tmp_path):
    text = "import warp as wp\n" + _kernel("a", '@wp.kernel(module="unique", enable_backward=False)') + _kernel(
        "b", '@wp.kernel(module="unique", module_options={"max_unroll": 1})'
    ) + "\ndef step(x):\n    wp.launch(a, dim=x.shape, inputs=[x])\n    wp.launch(b, dim=x.shape, inputs=[x])\n"
    assert _wct002(lint_snippet(tmp_path, text)) == []
    single = "import warp as wp\n" + _kernel("a") + "\nwp.launch(a, dim=1, inputs=[wp.zeros(1)])\n"
    assert _wct002(lint_snippet(tmp_path, single)) == []


def test_factory_kernels_are_not_stable(tmp_path):
    text = (
        "import warp as wp\n\ndef make(s):\n    @wp.kernel(module='unique')\n    def a(x: wp.array(dtype=float)):\n        x[0] = s\n    return a\n\n"
        "for s in (1.0, 2.0):\n    @wp.kernel(module='unique')\n    def b(x: wp.array(dtype=float)):\n        x[0] = s\n"
    )
    assert _wct002(lint_snippet(tmp_path, text)) == []
