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


def test_the_owner_is_a_module_the_model_finds_kernels_in_not_one_whose_text_shows_one(tmp_path):
    """A docstring's example kernel makes no module of it; a kernel made with
    ``wp.kernel(fn)`` does (the owners were read from the text before)."""
    init = "import warp as wp\n\nwp.set_module_options({'enable_backward': False})\n\nfrom . import helpers, ops\n"
    helpers = '"""Write kernels as\n\n@wp.kernel\ndef example(x: wp.array(dtype=float)):\n    pass\n"""\nimport warp as wp\n'
    ops = "import warp as wp\n\ndef _clear(x: wp.array(dtype=float)):\n    x[wp.tid()] = 0.0\n\nclear = wp.kernel(_clear)\n"
    found = _only(lint_files(tmp_path, {"sim/__init__.py": init, "sim/helpers.py": helpers, "sim/ops.py": ops}))
    assert [(f.path, f.line) for f in found] == [("sim/__init__.py", 3)]
    assert 'module="sim.ops"' in found[0].message


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


def test_redundant_when_every_kernel_module_meant_sets_the_same_itself(tmp_path):
    # newton's Kamino: every file turns backward off for itself, also those without kernels.
    # When each kernel module the file imports or launches (or, related to none, each of its
    # package) already sets the same, no module builds anything the call meant to prevent.
    own = "import warp as wp\n\nwp.set_module_options({'enable_backward': False})\n"
    kernels = own + "\n@wp.kernel\ndef k(x: wp.array(dtype=float)):\n    x[wp.tid()] = 0.0\n"
    files = {
        "kam/__init__.py": "",
        "kam/bodies.py": kernels,
        "kam/size.py": own + "\nSIZE = 4\n",
        "kam/model.py": own + "\nfrom kam import bodies\n\ndef run(x):\n    wp.launch(bodies.k, dim=1, inputs=[x])\n",
    }
    assert _only(lint_files(tmp_path, files)) == []
    # A kernel module meant that keeps its default is still told: one the file launches, and
    # for a file related to none, one of its package.
    files["kam/common.py"] = KERNEL
    files["kam/model.py"] += "\nfrom kam import common\n\ndef other(x):\n    wp.launch(common.k, dim=1, inputs=[x])\n"
    found = sorted((f.path, f.line) for f in _only(lint_files(tmp_path, files)))
    assert found == [("kam/model.py", 3), ("kam/size.py", 3)]
