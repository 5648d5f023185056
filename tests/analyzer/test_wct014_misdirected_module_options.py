"""WCT014 misdirected-module-options."""

from __future__ import annotations

from warp_ct.analyzer.fixes import apply_fixes

from .helpers import lint_files, rule_filter

KERNEL = "import warp as wp\n\n@wp.kernel\ndef k(x: wp.array(dtype=float)):\n    x[wp.tid()] = 0.0\n"


_only = rule_filter("WCT014")


def test_package_init_configures_an_empty_module(tmp_path):
    init = "import warp as wp\n\nwp.set_module_options({'enable_backward': False})\n\nfrom . import kernels\n"
    files = {"sim/__init__.py": init, "sim/kernels.py": KERNEL}
    found = _only(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("sim/__init__.py", 3)]
    assert 'module="sim.kernels"' in found[0].message
    out = apply_fixes(init, found, unsafe=True).text
    assert "wp.set_module_options({'enable_backward': False}, module=\"sim.kernels\")" in out


def test_no_fix_when_owner_is_ambiguous_or_unknown(tmp_path):
    files = {
        "main.py": "import warp as wp\nimport a, b\nwp.set_module_options({'max_unroll': 1}, module=None)\n",
        "a.py": KERNEL,
        "b.py": KERNEL,
        "cfg.py": "import warp as wp\nimport numpy\n\ndef configure():\n    wp.set_module_options({'fast_math': True})\n",
    }
    found = _only(lint_files(tmp_path, files))
    assert [(f.path, f.line, len(f.fixes)) for f in found] == [("cfg.py", 5, 0), ("main.py", 3, 0)]


def test_files_that_own_warp_code_are_silent(tmp_path):
    files = {
        "kern.py": "import warp as wp\nwp.set_module_options({'enable_backward': False})\n" + KERNEL,
        "funcs.py": "import warp as wp\nwp.set_module_options({'fast_math': True})\n@wp.func\ndef f(x: float):\n    return x\n",
        "structs.py": "import warp as wp\nwp.set_module_options({'fast_math': True})\n@wp.struct\nclass S:\n    a: float\n",
        "factory.py": "import warp as wp\nwp.set_module_options({'fast_math': True})\ndef make(f):\n    return wp.kernel(f)\n",
        "named.py": "import warp as wp\nwp.set_module_options({'fast_math': True}, module='kern')\n",
    }
    assert _only(lint_files(tmp_path, files)) == []


def test_fem_integrands_belong_to_the_file(tmp_path):
    # warp.fem builds kernels in the module of the file that defines the integrand
    text = (
        "import warp as wp\nimport warp.fem as fem\n\n@fem.integrand\ndef mass(s: fem.Sample, u: fem.Field):\n"
        "    return u(s)\n\nif __name__ == '__main__':\n    wp.set_module_options({'enable_backward': False})\n"
    )
    assert _only(lint_files(tmp_path, {"example_fem.py": text})) == []
