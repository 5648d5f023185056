"""Shapes from audit set 3 (twelve third-party Warp packages labelled in
benchmarks/thirdparty/labels.toml): each test is the real code's shape, cut down, for a
finding the labels judged false or a miss."""

from __future__ import annotations

import pytest

from tests.analyzer.helpers import lint_files, rule_filter

_wct007 = rule_filter("WCT007")

# mosaic-bench tesseract_api.py:581-700: a @functools.cache'd factory with only a default
# argument hands back two kernels of a named module; two wrappers each ask it for one and
# launch it, and the FFT calls the wrappers again and again.
CONJ = '''import functools

import warp as wp


@functools.cache
def _conj_kernels(_tag: str = "bluestein_conj"):
    @wp.kernel(module="bluestein_conj")
    def conj_k(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = -x[i]

    @wp.kernel(module="bluestein_conj")
    def conj_scale_k(x: wp.array(dtype=float), s: float, y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = -x[i] * s

    return {"conj": conj_k, "conj_scale": conj_scale_k}


def _conj_rows(x, device):
    y = wp.zeros(x.shape, dtype=float, device=device)
    wp.launch(_conj_kernels()["conj"], dim=x.shape, inputs=[x], outputs=[y], device=device)
    return y


def _conj_scale_rows(x, s, device):
    y = wp.zeros(x.shape, dtype=float, device=device)
    wp.launch(_conj_kernels()["conj_scale"], dim=x.shape, inputs=[x, s], outputs=[y], device=device)
    return y


def fft(x, device):
    y = _conj_rows(x, device)
    y = _conj_scale_rows(y, 0.5, device)
    y = _conj_rows(y, device)
    return _conj_scale_rows(y, 0.5, device)
'''

_DICT_CACHE = CONJ.replace(
    '@functools.cache\ndef _conj_kernels(_tag: str = "bluestein_conj"):',
    '_CACHE = {}\n\n\ndef _conj_kernels(_tag: str = "bluestein_conj"):\n    if _tag in _CACHE:\n        return _CACHE[_tag]',
).replace(
    '    return {"conj": conj_k, "conj_scale": conj_scale_k}',
    '    _CACHE[_tag] = {"conj": conj_k, "conj_scale": conj_scale_k}\n    return _CACHE[_tag]',
)


@pytest.mark.parametrize(
    "text",
    [
        CONJ,
        CONJ.replace("import functools\n", "from functools import lru_cache as memo\n").replace(
            "@functools.cache", "@memo(maxsize=None)"
        ),
        _DICT_CACHE,
        # Not memoized at all: each call defines the same kernels again, same source and
        # captures, so the module's hash stays and the loaded build is reused (measured: 1
        # build, 1 hash for three FFTs).
        CONJ.replace("@functools.cache\n", ""),
    ],
    ids=["functools.cache", "lru_cache alias", "dict cache", "no cache, same values"],
)
def test_a_memoized_factory_asked_again_from_several_wrappers_defines_nothing_new(tmp_path, text):
    # Was 4 x WCT007 on mosaic-bench ("defines the kernel `conj_k` in a module that the
    # launch of `conj_k` already loaded"): the second call is a cache hit (eee1e57).
    # Measured under `warp-ct probe measure`: bluestein_conj built once, one hash.
    assert _wct007(lint_files(tmp_path, {"fft/__init__.py": "", "fft/ops.py": text})) == []


_wct009 = rule_filter("WCT009")

# mosaic-bench tesseract_api.py:1624-1690: the solver sets a local block_dim constant, and a
# nested adjoint hook (registered with tape.record_func) launches through a wrapper at it.
CLIP = '''import warp as wp


@wp.kernel
def clip_k(x: wp.array(dtype=float), c: float):
    i = wp.tid()
    x[i] = wp.clamp(x[i], -c, c)


@wp.kernel
def step_k(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] * 0.5


def _wlaunch(kernel, dim, inputs, block_dim=256, device="cpu"):
    wp.launch(kernel, dim=dim, inputs=inputs, block_dim=block_dim, device=device)


def solve(x, steps, clip, device):
    _bd = 256
    tape = wp.Tape()
    with tape:
        for _ in range(steps):
            if clip is not None:

                def _clip_adj(_v=x, _c=clip, _d=device):
                    _wlaunch(clip_k, dim=_v.shape, inputs=[_v, _c], block_dim=_bd, device=_d)

                tape.record_func(backward=_clip_adj, arrays=[x])
            wp.launch(step_k, dim=x.shape, inputs=[x], device=device)
    return tape
'''


def test_a_closure_launching_at_its_enclosing_functions_constant_block_dim(tmp_path):
    # Was a WCT009 info "block_dim is `_bd_3d`, chosen at run time": the closure's free name
    # is the enclosing function's local, 256, what the module's other launches use.
    assert _wct009(lint_files(tmp_path / "same", {"ns.py": CLIP})) == []
    # The same constant at another value is a second block_dim of the module, now known.
    found = _wct009(lint_files(tmp_path / "other", {"ns.py": CLIP.replace("_bd = 256", "_bd = 128")}))
    assert [f.line for f in found] == [28] and "block_dim 128 here and at 256" in found[0].message


def test_a_closure_reading_its_enclosing_functions_parameter_block_dim(tmp_path):
    # A parameter of the enclosing function: what its callers pass.
    text = CLIP.replace("def solve(x, steps, clip, device):\n    _bd = 256\n", "def solve(x, steps, clip, device, _bd):\n")
    text += "\n\ndef run(x):\n    solve(x, 4, 1.0, 'cuda', 64)\n"
    found = _wct009(lint_files(tmp_path, {"ns.py": text}))
    assert [f.line for f in found] == [27] and "block_dim 64" in found[0].message


def test_a_closure_name_rebound_inside_the_closure_is_not_the_outer_local(tmp_path):
    text = CLIP.replace(
        "                    _wlaunch(clip_k,", "                    _bd = _v.shape[0]\n                    _wlaunch(clip_k,"
    )
    found = _wct009(lint_files(tmp_path, {"ns.py": text}))
    assert [f.line for f in found] == [29] and "chosen at run time" in found[0].message


_wct001 = rule_filter("WCT001")

# mujoco-warp-lucidrains-fork deterministic.py:106-139: a library switch that sets
# wp.config and then writes the option into every kernel module it finds, marking each
# modified; the package __init__ imports the kernels first.
SWITCH = '''import sys

import warp as wp

from lib import kernels


def _kernel_modules():
    modules = {}
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith("lib"):
            continue
        for obj in vars(module).values():
            if isinstance(obj, wp.Kernel) and obj.module is not None:
                modules[id(obj.module)] = obj.module
    return modules


def set_backward(enabled: bool):
    wp.config.enable_backward = enabled
    for module in _kernel_modules().values():
        module.options["enable_backward"] = enabled
        module.mark_modified()
'''
KERNELS = "import warp as wp\n\n\n@wp.kernel\ndef step(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n"
APP = "import warp as wp\n\nimport lib\nfrom lib import kernels\n\nlib.set_backward(False)\n"


@pytest.mark.parametrize(
    "apply",
    [
        '        module.options["enable_backward"] = enabled\n',
        '        module.options.update({"enable_backward": enabled})\n',
    ],
    ids=["item", "update"],
)
def test_a_config_option_also_written_into_every_existing_module_is_not_late(tmp_path, apply):
    # Measured (probe, CPU): with the loop lib.kernels is built once without backward code
    # (no measured WCT001 or WCT010); without it, built with enable_backward=True.
    text = SWITCH.replace('        module.options["enable_backward"] = enabled\n', apply)
    files = {"lib/__init__.py": text, "lib/kernels.py": KERNELS, "app.py": APP}
    assert _wct001(lint_files(tmp_path, files)) == []


def test_a_config_option_with_a_loop_over_modules_that_writes_another_option_is_late(tmp_path):
    text = SWITCH.replace('module.options["enable_backward"]', 'module.options["lineinfo"]')
    found = _wct001(lint_files(tmp_path, {"lib/__init__.py": text, "lib/kernels.py": KERNELS, "app.py": APP}))
    assert [(f.path, f.line) for f in found] == [("lib/__init__.py", 20)]


_wct010 = rule_filter("WCT010")

# isaaclab programs.py:240-266 (run_program: `wp.config.enable_backward = False`, then the
# example runs by path) and its examples importing the library directly: the application
# entry point turns backward code off for its whole run; only a script started on its own
# builds backward code.
LAB = {
    "lab/__init__.py": "",
    "lab/kernels.py": (
        "import warp as wp\n\n\n@wp.kernel\ndef fill(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n\n\n"
        "def fill_all(x):\n    wp.launch(fill, dim=x.shape, inputs=[x])\n"
    ),
    "lab/__main__.py": (
        "import runpy\nimport sys\n\nimport warp as wp\n\n\ndef run_program(path):\n"
        "    wp.config.enable_backward = False\n    runpy.run_path(path, run_name='__main__')\n\n\n"
        "if __name__ == '__main__':\n    run_program(sys.argv[1])\n"
    ),
    "lab/examples/demo.py": (
        "import warp as wp\n\nfrom lab.kernels import fill_all\n\n\n"
        "if __name__ == '__main__':\n    fill_all(wp.zeros(8, dtype=float))\n"
    ),
}


def test_backward_turned_off_at_the_applications_entry_point_is_information(tmp_path):
    # Measured (probe, CPU): `python -m lab lab/examples/demo.py` builds lab.kernels without
    # backward code; `python lab/examples/demo.py` on its own builds it with.
    found = _wct010(lint_files(tmp_path / "off", LAB))
    assert [(f.path, f.severity.name.lower()) for f in found] == [("lab/kernels.py", "info")]
    assert "lab/__main__.py:8" in found[0].message and "only a run that starts elsewhere" in found[0].message
    keep = dict(LAB, **{"lab/__main__.py": LAB["lab/__main__.py"].replace("    wp.config.enable_backward = False\n", "")})
    found = _wct010(lint_files(tmp_path / "on", keep))
    assert [(f.path, f.severity.name.lower()) for f in found] == [("lab/kernels.py", "warning")]


def test_backward_turned_off_only_by_an_example_or_a_test_changes_nothing(tmp_path):
    files = dict(LAB, **{
        "lab/__main__.py": LAB["lab/__main__.py"].replace("    wp.config.enable_backward = False\n", ""),
        "lab/examples/other.py": "import warp as wp\n\nwp.config.enable_backward = False\n\nimport lab.kernels\n",
        "tests/conftest.py": "import warp as wp\n\nwp.config.enable_backward = False\n",
    })
    found = _wct010(lint_files(tmp_path, files))
    assert [(f.path, f.severity.name.lower()) for f in found] == [("lab/kernels.py", "warning")]
