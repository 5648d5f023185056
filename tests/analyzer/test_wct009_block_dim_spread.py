"""WCT009 block-dim-spread: one module built at several block_dims."""

from __future__ import annotations

from warp_ct.analyzer.model import Severity

from .helpers import lint_files, lint_snippet, rule_filter

KERNELS = (
    "import warp as wp\n"
    "BLOCK = 64\n"
    "TILE = 8\n"
    "@wp.kernel\n"
    "def a(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n"
    "@wp.kernel\n"
    "def b(x: wp.array(dtype=float)):\n    x[wp.tid()] = 2.0\n"
)  # a at line 4-6, b at 7-9; user code starts at line 10


_only = rule_filter("WCT009")


def test_two_kernels_two_block_dims(tmp_path):
    text = KERNELS + (
        "def run(x):\n"
        "    wp.launch(a, dim=4, inputs=[x])\n"
        "    wp.launch_tiled(b, dim=[1], inputs=[x], block_dim=BLOCK)\n"
        "    wp.launch(b, dim=4, inputs=[x], block_dim=64)\n"  # same value again: no new build
        "    wp.launch(a, dim=4, inputs=[x], block_dim=TILE * TILE)\n"  # 64 again
        "    wp.launch(a, dim=4, inputs=[x], block_dim=32)\n"
    )
    found = _only(lint_snippet(tmp_path, text, name="sim.py"))
    assert [f.line for f in found] == [12, 15]
    assert "block_dim 64" in found[0].message and "256" in found[0].message


def test_same_block_dim_everywhere_is_fine(tmp_path):
    text = KERNELS + (
        "def run(x):\n"
        "    wp.launch(a, dim=4, inputs=[x], block_dim=BLOCK)\n"
        "    wp.launch_tiled(b, dim=[1], inputs=[x], block_dim=64)\n"
    )
    assert _only(lint_snippet(tmp_path, text, name="sim.py")) == []


def test_module_default_from_set_module_options(tmp_path):
    text = KERNELS.replace("TILE = 8\n", "TILE = 8\nwp.set_module_options({'block_dim': 64})\n") + (
        "def run(x):\n"
        "    wp.launch(a, dim=4, inputs=[x])\n"
        "    wp.launch(b, dim=4, inputs=[x], block_dim=64)\n"
    )
    assert _only(lint_snippet(tmp_path, text, name="sim.py")) == []


def test_cpu_unique_and_single_kernel_modules_are_silent(tmp_path):
    text = (
        "import warp as wp\n"
        "@wp.kernel(module='unique')\n"
        "def t(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n"
        "@wp.kernel\n"
        "def a(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n"
        "@wp.kernel\n"
        "def b(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n"
        "def run(x):\n"
        "    wp.launch(a, dim=4, inputs=[x])\n"
        "    wp.launch(t, dim=4, inputs=[x], block_dim=32)\n"  # own module
        "    wp.launch(b, dim=4, inputs=[x], block_dim=32, device='cpu')\n"  # cpu: always 1
    )
    assert _only(lint_snippet(tmp_path, text, name="sim.py")) == []
    single = (
        "import warp as wp\n@wp.kernel\ndef s(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n"
        "def sweep(x):\n    for bd in (32, 64, 128):\n        wp.launch(s, dim=4, inputs=[x], block_dim=bd)\n"
        "    wp.launch(s, dim=4, inputs=[x], block_dim=512)\n"
    )
    assert _only(lint_snippet(tmp_path / "s", single, name="bench.py")) == []


def test_runtime_block_dim_in_shared_module(tmp_path):
    text = KERNELS + (
        "def run(x, block_dim):\n"
        "    wp.launch(a, dim=4, inputs=[x])\n"
        "    wp.launch(b, dim=4, inputs=[x], block_dim=block_dim)\n"
        "class Solver:\n"
        "    def __init__(self):\n        self.bd = 128\n"
        "    def step(self, x):\n"
        "        wp.launch(b, dim=4, inputs=[x], block_dim=self.bd)\n"  # 128 from __init__: a second build
        "    def step2(self, x, cfg):\n"
        "        wp.launch(b, dim=4, inputs=[x], block_dim=cfg.block_dim)\n"  # fixed per run, but unknown
    )
    found = _only(lint_snippet(tmp_path, text, name="sim.py"))
    assert [(f.line, f.severity) for f in found] == [(12, Severity.INFO), (17, Severity.WARNING), (19, Severity.INFO)]
    assert "run time" in found[0].message
    assert "block_dim 128" in found[1].message and "256" in found[1].message
    # One value for the run: a second build only if it is not the 256 of `a`'s launch.
    assert "`cfg.block_dim`, chosen at run time" in found[2].message and "block_dim 256 for `a`" in found[2].message


def test_get_suggested_block_size_then_other_block_dim(tmp_path):
    text = (
        "import warp as wp\n"
        "@wp.kernel\n"
        "def k(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n"
        "def tuned(x, device):\n"
        "    size, _ = wp.get_suggested_block_size(k, device)\n"
        "    wp.launch(k, dim=x.shape, inputs=[x], block_dim=size, device=device)\n"
        "def fixed(x):\n"
        "    wp.get_suggested_block_size(k)\n"
        "    wp.launch(k, dim=x.shape, inputs=[x])\n"
    )
    found = _only(lint_snippet(tmp_path, text, name="occ.py"))
    assert [f.line for f in found] == [6, 9]  # both queries load at 256; line 7 launches at `size`
    assert "default block_dim 256" in found[0].message and "block_dim=size" in found[0].message
    ok = text.replace("block_dim=size, ", "")
    assert _only(lint_snippet(tmp_path / "ok", ok, name="occ.py")) == []


def test_kernels_imported_from_a_project_module(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/kernels.py": KERNELS,
        "main.py": (
            "import warp as wp\nfrom pkg.kernels import a\nimport pkg.kernels as pk\n"
            "def run(x):\n"
            "    wp.launch(a, dim=4, inputs=[x], block_dim=128)\n"
            "    wp.launch(pk.b, dim=4, inputs=[x])\n"
        ),
    }
    found = _only(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("main.py", 6)]
    assert "pkg.kernels" in found[0].message


def test_name_assigned_in_two_branches_is_runtime(tmp_path):
    # shaped like an iterative solver: tile size picked from the problem size, else 1. No
    # claim of a sure second build (the warning); either value differs from `a`'s 256 unless
    # the problem size makes it 256, so the run-time note applies.
    text = KERNELS + (
        "import math\n"
        "def setup(x, restart, tiled):\n"
        "    if tiled:\n"
        "        tile_size = 1 << math.ceil(math.log2(restart))\n"
        "    else:\n"
        "        tile_size = 1\n"
        "    wp.launch(a, dim=4, inputs=[x])\n"
        "    wp.launch(b, dim=(4, tile_size), inputs=[x], block_dim=tile_size)\n"
    )
    found = _only(lint_snippet(tmp_path, text, name="solver.py"))
    assert [(f.line, f.severity) for f in found] == [(17, Severity.INFO)]
    assert "`tile_size`, chosen at run time" in found[0].message


def test_tuned_block_dims_in_one_module(tmp_path):
    """Block_dims from a tuning table (``get_tuned_block_dim(name, device)``), shaped like a
    splatting package: a tuned kernel beside kernels at the default is a second build
    whenever the tuned value is not 256; two kernels tuned under two names are two values."""
    tuning = (
        "_TABLE = {}\n"
        "def get_tuned_block_dim(name, device):\n"
        "    return _TABLE.get((name, str(device)), 128)\n"
    )
    text = KERNELS + (
        "from tuning import get_tuned_block_dim\n"
        "def preprocess(x, device):\n"
        "    wp.launch(a, dim=4, inputs=[x], device=device)\n"
        "    wp.launch(b, dim=4, inputs=[x], device=device, block_dim=get_tuned_block_dim('pre', device))\n"
        "def pick(x, device, fast):\n"
        "    wp.launch(a if fast else b, dim=4, inputs=[x], device=device, block_dim=get_tuned_block_dim('pick', device))\n"
    )
    found = _only(lint_files(tmp_path, {"tuning.py": tuning, "ops.py": text}))
    assert [(f.line, f.severity) for f in found] == [(13, Severity.INFO), (15, Severity.INFO)]  # one per launch
    assert "`get_tuned_block_dim('pre', device)`, chosen at run time, for `b`" in found[0].message
    assert "block_dim 256 for `a` (line 12)" in found[0].message


def test_one_run_time_block_dim_for_the_whole_module_is_one_build(tmp_path):
    text = KERNELS + (
        "class Op:\n"
        "    def __init__(self, device):\n        self.block_dim = pick_block_dim(device)\n"
        "    def run(self, x):\n"
        "        wp.launch(a, dim=4, inputs=[x], block_dim=self.block_dim)\n"
        "        wp.launch(b, dim=4, inputs=[x], block_dim=self.block_dim)\n"
    )
    assert _only(lint_snippet(tmp_path, text, name="op.py")) == []


def test_test_code_is_information(tmp_path):
    text = KERNELS + "def test_launch(x):\n    wp.launch(a, dim=4, inputs=[x])\n    wp.launch(b, dim=4, inputs=[x], block_dim=64)\n"
    found = _only(lint_files(tmp_path, {"tests/test_launch.py": text}))
    assert [(f.line, f.severity) for f in found] == [(12, Severity.INFO)]


def test_two_named_modules_of_one_file_are_two_modules(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/reduce.py": (
            "import warp as wp\n"
            "@wp.kernel(module='pkg.sum')\ndef sum_a(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n"
            "@wp.kernel(module='pkg.sum')\ndef sum_b(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n"
            "@wp.kernel(module='pkg.max')\ndef max_a(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n"
            "@wp.kernel(module='pkg.max')\ndef max_b(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n"
        ),
        "pkg/run.py": (
            "import warp as wp\nfrom .reduce import sum_a, sum_b, max_a, max_b\n"
            "def run(x):\n"
            "    wp.launch(sum_a, dim=4, inputs=[x], block_dim=128)\n    wp.launch(sum_b, dim=4, inputs=[x], block_dim=128)\n"
            "    wp.launch(max_a, dim=4, inputs=[x], block_dim=64)\n    wp.launch(max_b, dim=4, inputs=[x], block_dim=64)\n"
        ),
    }
    assert _only(lint_files(tmp_path, files)) == []
    spread = dict(files, **{"pkg/run.py": files["pkg/run.py"].replace("max_b, dim=4, inputs=[x], block_dim=64", "max_b, dim=4, inputs=[x], block_dim=32")})
    found = _only(lint_files(tmp_path / "b", spread))
    assert [(f.path, f.line) for f in found] == [("pkg/run.py", 7)] and "`pkg.max`" in found[0].message


def test_block_dims_through_parameters_tables_and_devices(tmp_path):
    text = KERNELS + (
        "class Solver:\n"
        "    def __init__(self, block_dims=(128, 256, 512)):\n        self.block_dims = block_dims\n"
        "    def step(self, x):\n"
        "        wp.launch(a, dim=4, inputs=[x], block_dim=self.block_dims[0])\n"
        "        wp.launch(b, dim=4, inputs=[x], block_dim=self.block_dims[1])\n"
        "STAGES = ((a, 64), (b, 32))\n"
        "def staged(x):\n"
        "    for kernel, block_dim in STAGES:\n"
        "        wp.launch(kernel, dim=4, inputs=[x], block_dim=block_dim)\n"
        "def per_device(x, device):\n"
        "    wp.launch(a, dim=4, inputs=[x], block_dim=int(BLOCK) * 8 if 'cuda' in device else 1, device=device)\n"
        "    wp.launch(b, dim=4, inputs=[x], block_dim=64 if device.startswith('cuda') else 1, device=device)\n"
    )
    found = _only(lint_snippet(tmp_path, text, name="sim.py"))
    lines = [f.line for f in found]
    assert lines == [15, 19, 21]
    assert "block_dim 256" in found[0].message  # self.block_dims[1] after self.block_dims[0] = 128
    assert "64, 32" in found[1].message  # the stage table
    assert "512" in found[2].message  # int(BLOCK) * 8 on the GPU; line 22: 64 again, and 1 is the CPU's own


def test_one_kernel_launched_at_a_run_time_block_dim_from_two_places_is_one_finding(tmp_path):
    # physicsnemo's fused norms: the backward pass recomputes the forward's statistics with
    # the same reduce kernel at the same ``block_dim=num_channels``: one problem, one fix.
    text = KERNELS + (
        "def forward(x, num_channels):\n"
        "    wp.launch(a, dim=4, inputs=[x])\n"
        "    wp.launch(b, dim=4, inputs=[x], block_dim=num_channels)\n"
        "def backward(x, num_channels):\n"
        "    wp.launch(b, dim=4, inputs=[x], block_dim=num_channels)\n"
        "    wp.launch(a, dim=4, inputs=[x])\n"
    )
    found = _only(lint_snippet(tmp_path, text, name="norm.py"))
    assert [f.line for f in found] == [12]
    assert "for `b` (here and at line 14)" in found[0].message


def test_a_launching_helper_in_another_file_is_read_at_each_call_site(tmp_path):
    # ``run_tiled(kernel, n, inputs, block_dim)`` launches what its callers pass: each call
    # is a launch with that call's kernel and block_dim, paired (c at 128 in another module
    # is no spread; a at 64 and b at 128 in one module is).
    files = {
        "pkg/__init__.py": "",
        "pkg/kernels.py": KERNELS,
        "pkg/other.py": "import warp as wp\n@wp.kernel\ndef c(x: wp.array(dtype=float)):\n    x[wp.tid()] = 3.0\n",
        "pkg/launch.py": (
            "import warp as wp\n"
            "def run_tiled(kernel, n, inputs, block_dim):\n"
            "    wp.launch_tiled(kernel, dim=n, inputs=inputs, block_dim=block_dim)\n"
        ),
        "pkg/app.py": (
            "from pkg.kernels import a, b\n"
            "from pkg.other import c\n"
            "from pkg.launch import run_tiled\n"
            "def main(x):\n"
            "    run_tiled(a, 4, [x], 64)\n"
            "    run_tiled(c, 4, [x], 128)\n"  # another module: its own build
            "    run_tiled(b, 4, [x], 128)\n"  # a's module again, at another block_dim
            "    run_tiled(lookup(), 4, [x], 32)\n"  # a kernel the model cannot name: no launch of its own
        ),
    }
    found = _only(lint_files(tmp_path, files))
    assert [(f.path.rsplit("/", 1)[-1], f.line) for f in found] == [("app.py", 7)]
    assert "block_dim 128" in found[0].message and "64" in found[0].message


def test_kernels_remade_per_configuration_with_their_block_dim_are_not_a_spread(tmp_path):
    # Shaped like warp-lang's tile matmul benchmark: each configuration (read at run time)
    # makes its kernels anew with its tile sizes, so each is a new build whatever its block_dim.
    factory = (
        "import warp as wp\n"
        "def make_gemm(tile_m):\n"
        "    TILE_M = tile_m\n"
        "    @wp.kernel\n"
        "    def gemm(x: wp.array(dtype=float)):\n"
        "        x[wp.tid()] = float(TILE_M)\n"
        "    return gemm\n"
        "@wp.kernel\n"
        "def clear(x: wp.array(dtype=float)):\n"
        "    x[wp.tid()] = 0.0\n"
        "def launch(kernel, x, block_dim):\n"
        "    wp.launch(kernel, dim=4, inputs=[x], block_dim=block_dim)\n"
    )
    sweep = "def main(x, configs):\n    wp.launch(clear, dim=4, inputs=[x])\n    for tile_m, block_dim in configs:\n"
    remade = factory + sweep + "        launch(make_gemm(tile_m), x, block_dim)\n"
    assert _only(lint_snippet(tmp_path / "remade", remade, name="bench.py")) == []
    # The same kernel for every configuration: each block_dim is a build of its own.
    fixed = factory + sweep + "        launch(make_gemm(16), x, block_dim)\n"
    found = _only(lint_snippet(tmp_path / "fixed", fixed, name="bench.py"))
    assert found and all("gemm" in f.message for f in found)


_STAGES = KERNELS + (
    "class Pipeline:\n"
    "    def __init__(self, device):\n"
    "        wide = 256 if 'cuda' in device else 1\n"
    "        self.stages = [((a, wide), 'a'), ((b, {other}), 'b')]\n"
    "    def _stage(self, spec, x):\n"
    "        kernel, block = spec\n"
    "        wp.launch(kernel, dim=4, inputs=[x], block_dim=block)\n"
    "    def run(self, x):\n"
    "        for spec, name in self.stages:\n"
    "            self._stage(spec, x)\n"
)


def test_stage_rows_handed_to_a_method_with_a_device_choice(tmp_path):
    # Each row's (kernel, block_dim) reaches the launch through the method's parameter; on a
    # GPU `256 if 'cuda' in device else 1` is 256, beside the other row's 64.
    found = _only(lint_snippet(tmp_path, _STAGES.format(other=64)))
    assert [f.line for f in found] == [16] and "block_dims 256, 64" in found[0].message


def test_device_choice_equal_to_the_other_rows_on_the_gpu(tmp_path):
    # On a GPU every row is 256; the CPU's 1 is never a build of a CUDA module.
    assert _only(lint_snippet(tmp_path, _STAGES.format(other=256))) == []


_TILED = (
    "import warp as wp\n\nTILE = 512\n\n\n"
    "@wp.kernel\ndef first(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n\n\n"
    "@wp.kernel\ndef second(x: wp.array(dtype=float)):\n    x[wp.tid()] = 2.0\n\n\n"
    "class Norm:\n"
    "    def __init__(self, device):\n        self.tile = TILE\n        self.device = device\n"
    "        if {test}:\n            self.tile = {small}\n\n"
    "    def run(self, x):\n"
    "        wp.launch(first, dim=4, inputs=[x], block_dim=self.tile, device=self.device)\n"
    "        wp.launch(second, dim=4, inputs=[x], block_dim=TILE, device=self.device)\n"
)


def test_the_cpu_block_size_set_under_a_device_test_never_reaches_a_gpu_build(tmp_path):
    # newton's ArraySquaredNorm: `if not self.device.is_cuda: self.tile_size = 1`.
    assert _only(lint_snippet(tmp_path, _TILED.format(test="not self.device.is_cuda", small=1))) == []
    local = (
        "import warp as wp\n\n\n@wp.kernel\ndef first(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n\n\n"
        "@wp.kernel\ndef second(x: wp.array(dtype=float)):\n    x[wp.tid()] = 2.0\n\n\n"
        "def run(x, device):\n    bd = 256\n    if device == 'cpu':\n        bd = 1\n"
        "    wp.launch(first, dim=4, inputs=[x], block_dim=bd, device=device)\n"
        "    wp.launch(second, dim=4, inputs=[x], block_dim=256, device=device)\n"
    )
    assert _only(lint_snippet(tmp_path, local)) == []


def test_another_block_size_under_a_device_test_or_1_under_another_test_still_counts(tmp_path):
    # 64 is a CUDA block size whatever the test says; 1 under a test of the size is not the CPU's.
    assert len(_only(lint_snippet(tmp_path, _TILED.format(test="not self.device.is_cuda", small=64)))) == 1
    assert len(_only(lint_snippet(tmp_path, _TILED.format(test="self.small", small=1)))) == 1


def test_a_knob_read_with_a_default_is_its_default(tmp_path):
    # newton's steel solver: `int(overrides.get("serial_kernel_block_dim", 256))`, the others at 256.
    text = (
        "import warp as wp\n\nDEFAULT = 256\n\n\n"
        "@wp.kernel\ndef first(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n\n\n"
        "@wp.kernel\ndef second(x: wp.array(dtype=float)):\n    x[wp.tid()] = 2.0\n\n\n"
        "class Solver:\n"
        "    def __init__(self, overrides: dict):\n"
        "        self.serial = int(overrides.get('serial_kernel_block_dim', {default}))\n\n"
        "    def step(self, x):\n"
        "        wp.launch(first, dim=4, inputs=[x], block_dim=self.serial)\n"
        "        wp.launch(second, dim=4, inputs=[x], block_dim=256)\n"
    )
    assert _only(lint_snippet(tmp_path, text.format(default="DEFAULT"))) == []
    assert len(_only(lint_snippet(tmp_path, text.format(default="64")))) == 1  # another default: another build


_OVERRIDDEN_ON_CUDA = (
    "import warp as wp\n\n\n@wp.kernel\ndef first(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n\n\n"
    "@wp.kernel\ndef second(x: wp.array(dtype=float)):\n    x[wp.tid()] = 2.0\n\n\n"
    "def run(x, device, blocks):\n    bd = 1\n    if {test}:\n        bd = {big}\n"
    "    if blocks is None:\n        wp.launch(first, dim=4, inputs=[x], block_dim=bd, device=device)\n"
    "    wp.launch(second, dim=4, inputs=[x], block_dim=256, device=device)\n"
)


def test_a_1_that_a_cuda_test_overrides_is_the_cpu_block_size(tmp_path):
    # newton's kamino DVI solver: `bd = 1; if path.device.is_cuda and joint_blocks is None: bd = 256`.
    text = _OVERRIDDEN_ON_CUDA.format(test="device.is_cuda and blocks is None", big=256)
    assert _only(lint_snippet(tmp_path, text)) == []


def test_a_1_overridden_under_another_test_or_in_the_cpu_arm_still_counts(tmp_path):
    # Overridden by a size test: 1 is a CUDA block size too; under `not is_cuda`, 256 is the CPU's.
    assert len(_only(lint_snippet(tmp_path, _OVERRIDDEN_ON_CUDA.format(test="blocks is None", big=256)))) == 1
    assert len(_only(lint_snippet(tmp_path, _OVERRIDDEN_ON_CUDA.format(test="device.is_cuda", big=64)))) == 1
    assert len(_only(lint_snippet(tmp_path, _OVERRIDDEN_ON_CUDA.format(test="not device.is_cuda", big=256)))) == 1
