"""Hand-written Warp-shaped oddities: every rule runs on each (gates bypassed); none may raise."""

from __future__ import annotations

import pytest

from tests.fuzz.harness import assert_no_crash, lint_everything


def _nested(depth: int) -> str:
    lines = ["import warp as wp"]
    for i in range(depth):
        lines.append("    " * i + f"def f{i}():")
    lines.append("    " * depth + "@wp.kernel")
    lines.append("    " * depth + "def k(a: wp.array(dtype=float)):")
    lines.append("    " * depth + "    a[wp.tid()] = 1.0")
    lines.append("    " * depth + "wp.launch(k, dim=1, block_dim=64)")
    return "\n".join(lines) + "\n"


ODD = {
    "decorated_lambda_assignment": "import warp as wp\nk = wp.kernel(lambda a: a)\nwp.launch(k, dim=1)\n",
    "kernel_on_class": "import warp as wp\n@wp.kernel\nclass K:\n    pass\nwp.launch(K, dim=1)\n",
    "kernel_on_async": "import warp as wp\n@wp.kernel\nasync def k():\n    await x\n",
    "kwargs_everywhere": (
        "import warp as wp\nopts = {}\n@wp.kernel(**opts)\ndef k():\n    pass\n"
        "wp.launch(k, **opts)\nwp.set_module_options(**opts)\nwp.force_load(**opts)\n"
    ),
    "star_args_launch": "import warp as wp\nargs = ()\nwp.launch(*args)\nwp.launch(k, *args, block_dim=128)\nwp.launch()\n",
    "walrus": "import warp as wp\nif (k := wp.kernel(f)):\n    wp.launch(k, dim=(n := 3), block_dim=(b := 64))\n",
    "match_statement": (
        "import warp as wp\nmatch wp.config.mode:\n    case 'debug':\n        wp.config.enable_backward = False\n"
        "    case {'a': x, **rest}:\n        wp.set_module_options(rest)\n    case [wp.kernel, *_]:\n        pass\n"
        "    case _:\n        wp.launch(k, dim=1)\n"
    ),
    "nested_50_deep": _nested(50),
    "unicode_identifiers": (
        "import warp as ωπ\n@ωπ.kernel(module_options={'enable_backward': False})\ndef ядро(α: ωπ.array(dtype=float)):\n"
        "    α[ωπ.tid()] = 1.0  # 😀 é\nωπ.launch(ядро, dim=1, block_dim=64)\nωπ.config.enable_backward = False\n"
    ),
    "config_weird_targets": (
        "import warp as wp\nwp.config.enable_backward, x = False, 1\n(wp.config).max_unroll = 4\n"
        "wp.config.__dict__['lineinfo'] = True\ndel wp.config.mode\nwp.config.enable_backward: bool = False\n"
        "wp.config.max_unroll += 1\nsetattr(wp.config, 'mode', 'debug')\n"
    ),
    "options_not_a_dict": (
        "import warp as wp\nwp.set_module_options(None)\nwp.set_module_options([1, 2])\n"
        "wp.set_module_options({**a, 'enable_backward': False}, module=wp.get_module())\n"
        "wp.get_module(__name__).options.update(1, 2, 3)\nwp.get_module().options['x'] = 1\n"
    ),
    "kernel_redefined_and_overloaded": (
        "import warp as wp\n@wp.kernel\ndef k(a: Any):\n    pass\nwp.launch(k, dim=1)\n@wp.kernel\ndef k(a: Any):\n    pass\n"
        "wp.overload(k, [wp.array(dtype=float)])\nwp.overload(k)\nwp.overload()\n@wp.overload\ndef k(a: float):\n    ...\n"
    ),
    "tape_shapes": (
        "import warp as wp\nwith wp.Tape() as t, open('x'):\n    wp.launch(k, dim=1)\nt.backward()\n"
        "tape = wp.Tape()\nwith tape:\n    pass\ntape.backward(loss=None, grads={})\nwp.Tape().backward()\n"
    ),
    "cache_shapes": (
        "import os, shutil, tempfile, warp as wp\nwp.config.kernel_cache_dir = tempfile.mkdtemp()\n"
        "shutil.rmtree(wp.config.kernel_cache_dir)\nos.environ['CUDA_CACHE_DISABLE'] = '1'\n"
        "os.environ.update(CUDA_CACHE_DISABLE=1)\nwp.clear_kernel_cache(*x)\nwp.config.cache_kernels = not True\n"
    ),
    "block_dim_shapes": (
        "import warp as wp\nfor b in (64, 128):\n    wp.launch(k, dim=1, block_dim=b)\n"
        "wp.launch(k, dim=1, block_dim=wp.get_suggested_block_size(k) * 2)\n"
        "wp.launch_tiled(k, dim=[1], inputs=[], block_dim=None)\nwp.launch(k, 1, [], [], None, None, False, True, False, 0, 32)\n"
    ),
    "load_shapes": (
        "import warp as wp\nwp.force_load(device=['cpu', 'cuda:0'], max_workers=-1)\n"
        "wp.load_module(wp.get_module(__name__), recursive=True, max_workers=os.cpu_count())\n"
        "wp.force_load(modules=[m for m in ms], max_workers=2, device=None)\n"
    ),
    "unique_shapes": (
        "import warp as wp\nwp.set_module_options({'enable_backward': False})\nU = 'unique'\n"
        "@wp.kernel(module=U)\ndef a():\n    pass\n@wp.kernel(module='unique', module_options=dict(enable_backward=False))\n"
        "def b():\n    pass\n@wp.kernel(module='unique', enable_backward=wp.config.enable_backward)\ndef c():\n    pass\n"
    ),
    "decorator_soup": (
        "import warp as wp, functools\n@functools.cache\n@wp.kernel\ndef k():\n    pass\n"
        "@wp.kernel\n@functools.lru_cache(None)\ndef j():\n    pass\n@wp.kernel()()\ndef q():\n    pass\n"
        "@wp.kernel[0]\ndef r():\n    pass\n@(wp.kernel if x else wp.func)\ndef s():\n    pass\n"
    ),
    "factory_returns_everything": (
        "import warp as wp\ndef make(n):\n    @wp.kernel\n    def k():\n        pass\n    return k, [k], {k: k}, lambda: k\n"
        "x = make(1)\ny = make\nz = y(2)[0]\nwp.launch(make(3)[0], dim=1)\nclass C:\n    def m(self):\n"
        "        @wp.kernel\n        def k():\n            pass\n        return k\n    k = property(m)\n"
    ),
    "reexport_loops": "from . import a as b\nfrom .b import c as a\nimport warp as wp\nwp = wp.wp\nwp.launch(a.k, dim=1)\n",
    "global_nonlocal_del": (
        "import warp as wp\ndef f():\n    global wp\n    del wp\n    import warp as wp\n    def g():\n"
        "        nonlocal_x = 1\n        wp.config.enable_backward = False\n    return g\n"
    ),
    "stub_and_type_only": "import warp as wp\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from warp import kernel\nx: 'wp.kernel' = ...\n",
    "syntax_error_midway": "import warp as wp\n@wp.kernel\ndef k(:\n    pass\n",
    "only_comments": "# import warp\n# @wp.kernel\n",
    "noqa_everything": "# warp-ct: noqa\nimport warp as wp\n@wp.kernel(module_options={})\ndef k():\n    pass\n",
    "long_line": "import warp as wp\nx = [" + ", ".join(str(i) for i in range(20000)) + "]\nwp.launch(k, dim=x)\n",
    "huge_string_concat": "import warp as wp\ns = " + " + ".join(f"'{i}'" for i in range(2000)) + "\nwp.launch(k, dim=1, block_dim=s)\n",
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_odd_warp_shapes(name: str) -> None:
    source = ODD[name]
    assert_no_crash(lint_everything(source, path=f"{name}.py"), source)
