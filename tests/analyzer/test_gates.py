"""The gates (``Rule.triggers`` over the text, ``Rule.needs_tree`` over the project view)
decide which files get a tree: they may let through files that have no finding, never
hide one. Every project here is linted twice, gated and with every gate open, and must
give the same findings."""

from __future__ import annotations

from pathlib import Path

import pytest

from warp_ct.analyzer.engine import Linter
from warp_ct.analyzer.rules import all_rules
from warp_ct.config import load_config

from .helpers import write_files


def open_gates(rule):
    """The rule as a subclass whose gates always say yes (the original is untouched)."""
    return type(f"Open{type(rule).__name__}", (type(rule),), {"triggers": (), "needs_tree": lambda self, s, p: True})()


def findings(root: Path, rules) -> set[tuple]:
    results = Linter(load_config(root), rules=rules).lint_paths([str(root)])
    return {(f.path, f.range.start.line, f.range.start.character, f.rule, f.message) for r in results for f in r.findings}


def assert_gates_hide_nothing(root: Path, files: dict[str, str]) -> set[tuple]:
    write_files(root, files)
    gated = findings(root, list(all_rules()))
    assert gated == findings(root, [open_gates(r) for r in all_rules()])
    return gated


EXAMPLES = [
    (f"{rule.code}-{kind}{n}", example.files)
    for rule in all_rules()
    for kind, examples in zip(("bad", "good"), rule.examples())
    for n, example in enumerate(examples)
]


@pytest.mark.parametrize("files", [files for _, files in EXAMPLES], ids=[name for name, _ in EXAMPLES])
def test_gates_hide_no_finding_in_the_doc_examples(files, tmp_path):
    assert_gates_hide_nothing(tmp_path, files)


KERNELS = """
import warp as wp

@wp.kernel
def step(x: wp.array(dtype=float)):
    x[wp.tid()] += 1.0

@wp.kernel
def other(x: wp.array(dtype=float)):
    x[wp.tid()] -= 1.0
"""

# Shapes the text gates read closely: each must still reach its rule.
SHAPES = {
    "augmented-and-annotated-options": KERNELS + "wp.config.max_unroll += 1\nwp.config.lineinfo: bool = True\n",
    "spaced-and-continued-option": KERNELS + "wp.config . lineinfo = True\nwp.config.\\\n    enable_backward = False\n",
    "aliased-config": KERNELS + "cfg = wp.config\ncfg.enable_backward = False\n",
    "option-keywords-only": KERNELS + "@wp.kernel(enable_backward=False)\ndef k(x: float):\n    pass\nopts = {'lineinfo': True}\n",
    "unique-spellings": (
        "import warp as wp\nwp.set_module_options({'enable_backward': False})\n"
        "@wp.kernel(module=u'unique')\ndef a(x: float):\n    pass\n"
        "@wp.kernel(module = (\"unique\"))\ndef b(x: float):\n    pass\n"
    ),
    "load-before-option-change": KERNELS + "wp.launch(step, dim=1, inputs=[x])\nwp.set_module_options({'max_unroll': 4})\n",
    "option-change-before-load": KERNELS + "wp.set_module_options({'max_unroll': 4})\nwp.launch(step, dim=1, inputs=[x])\n",
    "block-dims-in-launches": (
        KERNELS + "def run(x, n):\n    wp.launch(step, dim=1, inputs=[x], block_dim=64)\n"
        "    wp.launch(other, dim=1, inputs=[x])\n    for b in (32, 64):\n        wp.launch(step, dim=1, inputs=[x], block_dim=b)\n"
    ),
    "block-dim-outside-launches": KERNELS + "BLOCK_DIM = 64\nwp.set_module_options({'block_dim': 64})\nwp.launch(step, dim=1, inputs=[x])\n",
    "bare-options-beside-a-shadowed-warp-alias": (
        "import warp as wp\nimport taichi as ti\nwp.set_module_options({'enable_backward': False})\n"
        "def make(wp):\n    @wp.kernel\n    def k():\n        pass\n    return k\n"
    ),
    "bare-options-beside-another-kernel-decorator": (
        "import warp as wp\nimport taichi as ti\nwp.set_module_options({'enable_backward': False})\n"
        "@ti.kernel\ndef k():\n    pass\n"
    ),
    "bare-options-beside-warp-kernels": "import warp as wp\nwp.set_module_options({'enable_backward': False})\n" + KERNELS,
    "nested-kernels-with-and-without-module": (
        "import warp as wp\n"
        "def make_unique(s):\n    @wp.kernel(\n        enable_backward=False,\n        module='unique',\n    )\n"
        "    def k(x: float):\n        pass\n    return k\n"
        "def make_shared(s):\n    @wp.kernel(module=None)\n    @other(module='x')\n    def k(x: float):\n        pass\n    return k\n"
        "def step(x):\n    make_shared(1)\n"
    ),
    "kernels-defined-after-loads-in-blocks": (
        KERNELS + "def test_defines_then_launches(x):\n    @wp.kernel\n    def a(x: float):\n        pass\n"
        "    wp.launch(a, dim=1, inputs=[x])\n"
        'def launches_then_defines(x):\n    wp.launch(step, dim=1, inputs=[x])\n    s = """\nnot code\n"""\n'
        "    @wp.kernel\n    def b(x: float):\n        pass\n"
        "wp.launch(step, dim=1, inputs=[x])\nfor i in range(2):\n    @wp.func\n    def f(x: float):\n        return x\n"
    ),
    "native-function-defined-after-a-launch": (
        KERNELS + "def run(x):\n    wp.launch(step, dim=1, inputs=[x])\n"
        "    @wp.func_native('return;')\n    def native(x: int):\n        ...\n"
    ),
    "unique-kernels-at-module-and-class-scope": (
        "import warp as wp\n"
        "@wp.kernel(module='unique')\ndef a(x: wp.array(dtype=float)):\n    x[wp.tid()] += 1.0\n"
        "class K:\n    @wp.kernel(\n        module='unique',\n    )\n    def b(x: wp.array(dtype=float)):\n        x[wp.tid()] += 2.0\n"
        "def run(x):\n    wp.launch(a, dim=1, inputs=[x])\n    wp.launch(K.b, dim=1, inputs=[x])\n"
        "def run2(x):\n    wp.launch(a, dim=1, inputs=[x])\n    wp.launch(a, dim=2, inputs=[x])\n"
    ),
    "kernels-with-their-own-backward-settings": (
        "import warp as wp\n"
        "@wp.kernel(enable_backward=False)\ndef a(x: wp.array(dtype=float)):\n    x[wp.tid()] += 1.0\n"
        "@wp.kernel(\n    module='unique',\n)\ndef b(x: wp.array(dtype=float)):\n    x[wp.tid()] += 2.0\n"
        "@wp.kernel\ndef c(x: wp.array(dtype=float)):\n    x[wp.tid()] += 3.0\n"
        "def run(x):\n    wp.launch(a, dim=1, inputs=[x])\n    wp.launch(b, dim=1, inputs=[x])\n    wp.launch(c, dim=1, inputs=[x])\n"
    ),
    "options-update-after-load": (
        KERNELS + "def run(x):\n    wp.launch(step, dim=1, inputs=[x])\n"
        "    wp.get_module(__name__).options.update({'max_unroll': 4})\n"
    ),
    "cache-removed-through-a-local": (
        "import shutil\nimport warp as wp\n"
        "def reset():\n    cache = wp.config.kernel_cache_dir\n    shutil.rmtree(cache)\n"
    ),
    "cache-removed-through-the-environment": (
        "import os, shutil\nimport warp as wp\nshutil.rmtree(os.environ['WARP_CACHE_PATH'])\n"
    ),
    "cache-removed-by-keyword": (
        "import shutil\nimport warp as wp\nshutil.rmtree(path=wp.config.kernel_cache_dir)\n"
    ),
    "cache-dir-held-then-removed": (
        "import shutil, tempfile\nimport warp as wp\nroot = tempfile.mkdtemp()\n"
        "wp.config.kernel_cache_dir = root\nshutil.rmtree(root)\n"
    ),
    "other-dirs-removed-beside-cache-words": (
        "import shutil\nimport warp as wp\n# the kernel_cache_dir is left alone\nshutil.rmtree('build')\n"
    ),
    "driver-cache-off-in-a-child-environment": (
        "import os, subprocess\nimport warp as wp\nsubprocess.run(['x'], env=dict(os.environ, CUDA_CACHE_DISABLE='1'))\n"
    ),
}


# The finding each shape is about (the others only must not lose any).
REACHES = {
    "augmented-and-annotated-options": "WCT001", "spaced-and-continued-option": "WCT001",
    "aliased-config": "WCT001", "unique-spellings": "WCT013", "load-before-option-change": "WCT006",
    "options-update-after-load": "WCT006", "block-dims-in-launches": "WCT009",
    "bare-options-beside-a-shadowed-warp-alias": "WCT014", "bare-options-beside-another-kernel-decorator": "WCT014",
    "nested-kernels-with-and-without-module": "WCT003", "kernels-defined-after-loads-in-blocks": "WCT007",
    "native-function-defined-after-a-launch": "WCT007", "kernels-with-their-own-backward-settings": "WCT010",
    "cache-removed-through-a-local": "WCT008", "cache-removed-through-the-environment": "WCT008",
    "cache-removed-by-keyword": "WCT008", "cache-dir-held-then-removed": "WCT008",
    "driver-cache-off-in-a-child-environment": "WCT008",
}  # fmt: skip


@pytest.mark.parametrize("name", SHAPES)
def test_gates_hide_no_finding_in_shapes_they_read_closely(name, tmp_path):
    found = assert_gates_hide_nothing(tmp_path, {"pkg/__init__.py": "", "pkg/mod.py": SHAPES[name]})
    if name in REACHES:  # not vacuous: the shape produces the finding it is about
        assert REACHES[name] in {code for _path, _line, _col, code, _message in found}


def test_every_expected_finding_names_a_shape():
    assert set(REACHES) <= set(SHAPES)


# Names taken from a project module that imports warp: the facts cannot name what they
# stand for, so the tree checks read them; a constant or a class taken from there is no
# Warp name and gets no tree.
REEXPORTING = {
    "pkg/__init__.py": "",
    "pkg/api.py": (
        "import warp as wp\nfrom warp import set_module_options\nfrom warp import *\n"
        "LIMIT = 1 << 10\nclass Solver:\n    pass\n"
    ),
}


@pytest.mark.parametrize("user, code", [
    ("from pkg.api import wp\nwp.clear_kernel_cache()\n", "WCT008"),
    ("import warp as wp\nfrom pkg.api import set_module_options\n" + KERNELS.replace("import warp as wp\n", "")
     + "wp.launch(step, dim=1, inputs=[x])\nset_module_options({'max_unroll': 4})\n", "WCT006"),
])  # fmt: skip
def test_gates_let_reexported_warp_names_reach_the_tree_checks(user, code, tmp_path):
    found = assert_gates_hide_nothing(tmp_path, {**REEXPORTING, "pkg/user.py": user})
    assert code in {c for path, _line, _col, c, _message in found if path.endswith("user.py")}


def test_names_from_a_warp_importing_module_that_are_no_warp_names_get_no_tree(tmp_path):
    write_files(tmp_path, {**REEXPORTING, "pkg/user.py": (
        "import warp as wp\nfrom pkg.api import LIMIT, Solver\nimport pkg.api as api\n"
        "wp.config.kernel_cache_dir = 'cache'\nprint(api.LIMIT)\n"
    )})  # fmt: skip
    linter = Linter(load_config(tmp_path))
    results = linter.lint_paths([str(tmp_path)])
    user = str(tmp_path / "pkg" / "user.py")
    assert not linter.project.imports_warp_names(linter.project.files[user])
    assert [r.code for r in linter.active_rules(user, linter.project.files[user].text)] == ["WCT008"]
    assert all(not r.findings for r in results if r.path == user)
    # ``api.wp`` names Warp through the module: that file is the tree checks' to read.
    write_files(tmp_path, {"pkg/user.py": "import pkg.api as api\napi.wp.clear_kernel_cache()\n"})
    linter = Linter(load_config(tmp_path))
    linter.lint_paths([str(tmp_path)])
    assert linter.project.imports_warp_names(linter.project.files[user])
