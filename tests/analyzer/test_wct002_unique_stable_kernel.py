"""WCT002 unique-stable-kernel: module-scope unique kernels launched together."""

from __future__ import annotations

from warp_ct.analyzer.fixes import apply_fixes

from .helpers import lint_files, lint_snippet, rule_filter


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


FACTORIES = (
    "import warp as wp\n\n"
    "def make_scale(module=\"unique\"):\n    @wp.kernel(module=module)\n    def scale(x: wp.array(dtype=float), s: float):\n"
    "        x[wp.tid()] = x[wp.tid()] * s\n\n    return scale\n\n"
    "def make_offset(module=\"unique\"):\n    @wp.kernel(module=module)\n    def offset(x: wp.array(dtype=float), o: float):\n"
    "        x[wp.tid()] = x[wp.tid()] + o\n\n    return offset\n"
)


def test_factory_default_unique_never_passed_is_reported_at_the_default(tmp_path):
    # The canonical application: the probe measures one one-kernel module per factory.
    files = {
        "app/__init__.py": "",
        "app/kernels.py": FACTORIES,
        "app/pipeline.py": (
            "import warp as wp\nfrom .kernels import make_offset, make_scale\n\nclass Pipeline:\n"
            "    def run(self, x):\n        wp.launch(make_scale(), dim=1, inputs=[x, 2.0])\n"
            "        wp.launch(make_offset(), dim=1, inputs=[x, 1.0])\n"
        ),
    }
    found = [f for f in lint_files(tmp_path, files) if f.rule == "WCT002"]
    assert [(f.path, f.line, f.column) for f in found] == [("app/kernels.py", 3, 23), ("app/kernels.py", 10, 24)]
    assert found[0].severity.label == "warning" and "one-kernel modules" in found[0].message
    fixed = apply_fixes(FACTORIES, found[:1], unsafe=True).text
    assert 'def make_scale(module=None):' in fixed


def test_factory_default_unique_is_fine_when_a_caller_passes_it_or_captures_vary(tmp_path):
    passes = {
        "app/__init__.py": "",
        "app/kernels.py": FACTORIES,
        "app/pipeline.py": (
            "import warp as wp\nfrom .kernels import make_offset, make_scale\n\n"
            "def run(x):\n    wp.launch(make_scale(module=None), dim=1, inputs=[x, 2.0])\n"
            "    wp.launch(make_offset(None), dim=1, inputs=[x, 1.0])\n"
        ),
    }
    assert [f for f in lint_files(tmp_path / "a", passes) if f.rule == "WCT002"] == []
    varying = (
        "import warp as wp\n\ndef make_pow(n, module='unique'):\n    @wp.kernel(module=module)\n"
        "    def p(x: wp.array(dtype=float)):\n        x[wp.tid()] = x[wp.tid()] ** float(n)\n    return p\n\n"
        "def run(x):\n    wp.launch(make_pow(2), dim=1, inputs=[x])\n    wp.launch(make_pow(3), dim=1, inputs=[x])\n"
    )
    assert [f for f in lint_files(tmp_path / "b", {"m.py": varying}) if f.rule == "WCT002"] == []


def test_unique_kernels_launched_together_from_a_table_in_another_file(tmp_path):
    # Shaped like a trainer: regularizer kernels, each module="unique", listed in a table
    # that the trainer copies and loops over in one launch.
    kernel = "@wp.kernel(module='unique')\ndef {0}(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n\n"
    files = {
        "fit/__init__.py": "",
        "fit/terms.py": "import warp as wp\n\n" + kernel.format("l2") + kernel.format("smooth") + "TERMS = [(l2, 1.0), (smooth, 0.5)]\n",
        "fit/trainer.py": (
            "import warp as wp\nfrom fit.terms import TERMS\n\n"
            "class Trainer:\n    def __init__(self):\n        self.terms = list(TERMS)\n\n"
            "    def step(self, x):\n"
            "        for kernel, weight in self.terms:\n            wp.launch(kernel, dim=1, inputs=[x])\n"
        ),
    }
    found = [f for f in lint_files(tmp_path, files) if f.rule == "WCT002"]
    assert [(f.path, f.line) for f in found] == [("fit/terms.py", 3), ("fit/terms.py", 7)]
    assert "`Trainer.step()` (`fit.trainer` line 10) launches it with `smooth` from one launch" in found[0].message


def test_unique_kernels_of_a_table_launched_from_one_launch_in_their_own_file(tmp_path):
    # A fresh-eyes library: ``WINDOWS = {"hann": hann_window, ...}`` of module="unique"
    # kernels, applied by ``WindowBank.__call__`` in a loop over the names (measured: 4
    # one-kernel modules, 1.86 s for the first call vs 1.16 s as one module).
    kernels = "".join(
        f'@wp.kernel(module="unique")\ndef {n}(x: wp.array(dtype=float)):\n    x[wp.tid()] = 0.0\n\n'
        for n in ("hann", "rect")
    )
    text = (
        "import warp as wp\n\n" + kernels + 'WINDOWS = {"hann": hann, "rect": rect}\n\n'
        "class Bank:\n    def __call__(self, x):\n        for name in WINDOWS:\n"
        "            wp.launch(WINDOWS[name], dim=1, inputs=[x])\n"
    )
    found = [f for f in lint_files(tmp_path, {"bank.py": text}) if f.rule == "WCT002"]
    assert [f.line for f in found] == [3, 7]
    assert "`Bank.__call__()` (line 16) launches it with `rect` from one launch" in found[0].message


def test_variants_a_default_unique_factory_makes_up_front(tmp_path):
    # Fresh-eyes library: ``make_axis_filter(axis, module="unique")``, called for axes 0, 1, 2
    # in a scanner's ``__init__`` (measured: 3 one-kernel modules; in the shared module, 1 hash).
    files = {
        "kit/__init__.py": "",
        "kit/filters.py": 'import warp as wp\n\ndef make_axis_filter(axis, module="unique"):\n'
        "    @wp.kernel(module=module)\n    def axis_filter(p: wp.array(dtype=wp.vec3), m: wp.array(dtype=int)):\n"
        "        m[wp.tid()] = int(p[wp.tid()][axis] > 0.0)\n\n    return axis_filter\n",
        "app.py": "import warp as wp\nfrom kit.filters import make_axis_filter\n\nclass Scan:\n    def __init__(self):\n"
        "        self.filters = [make_axis_filter(axis) for axis in (0, 1, 2)]\n\n"
        "    def step(self, p, m):\n        for f in self.filters:\n            wp.launch(f, dim=1, inputs=[p, m])\n\n"
        "s = Scan()\nfor _ in range(3):\n    s.step(wp.zeros(1, dtype=wp.vec3), wp.zeros(1, dtype=int))\n",
    }
    found = [f for f in lint_files(tmp_path / "upfront", files) if f.rule == "WCT002"]
    assert [(f.path, f.line) for f in found] == [("kit/filters.py", 3)]
    assert "makes its variants up front (called in a loop in `Scan.__init__()`" in found[0].message
    # Made per step: each variant would rebuild a shared module; unique modules are right.
    per_step = dict(files, **{"app.py": files["app.py"].replace(
        "        for f in self.filters:\n", "        for f in [make_axis_filter(a) for a in (0, 1, 2)]:\n")})
    assert [f for f in lint_files(tmp_path / "per_step", per_step) if f.rule == "WCT002"] == []
    # The shared module is rebuilt per step by another factory: keep the variants out of it.
    churn = dict(files, **{"kit/filters.py": files["kit/filters.py"] + (
        "\ndef make_wind(w):\n    @wp.kernel\n    def wind(m: wp.array(dtype=int)):\n        m[0] = int(w)\n\n    return wind\n"),
        "app.py": files["app.py"].replace("from kit.filters import make_axis_filter",
                                          "from kit.filters import make_axis_filter, make_wind").replace(
            "            wp.launch(f, dim=1, inputs=[p, m])\n",
            "            wp.launch(f, dim=1, inputs=[p, m])\n        wp.launch(make_wind(len(self.filters) * 1.5), dim=1, inputs=[m])\n")})  # fmt: skip
    assert [f for f in lint_files(tmp_path / "churn", churn) if f.rule == "WCT002"] == []
