"""WCT006 options-after-load: module options changed after a launch of that module."""

from __future__ import annotations

from .helpers import lint_files, lint_snippet, rule_filter

HEAD = "import warp as wp\n\n@wp.kernel\ndef step(x: wp.array(dtype=float)):\n    i = wp.tid()\n    x[i] = x[i] + 1.0\n"


_wct006 = rule_filter("WCT006")


def test_set_module_options_after_launch_in_function(tmp_path):
    text = HEAD + "\ndef run(x):\n    wp.launch(step, dim=1, inputs=[x])\n    wp.set_module_options({'enable_backward': False})\n"
    found = _wct006(lint_snippet(tmp_path, text))
    assert [f.line for f in found] == [10]
    assert "line 9" in found[0].message and "built again" in found[0].message


def test_module_level_script(tmp_path):
    text = HEAD + "\nx = wp.zeros(4)\nwp.launch(step, dim=4, inputs=[x])\nwp.get_module(__name__).options['max_unroll'] = 1\n"
    assert [f.line for f in _wct006(lint_snippet(tmp_path, text))] == [10]


def test_get_module_options_update_and_force_load(tmp_path):
    text = HEAD + (
        "\ndef warm():\n    wp.force_load()\n    wp.get_module(__name__).options.update({'fast_math': True})\n"
        "\ndef query():\n    wp.get_suggested_block_size(step)\n    wp.set_module_options({'block_dim': 128}, module=__name__)\n"
    )
    assert [f.line for f in _wct006(lint_snippet(tmp_path, text))] == [10, 14]


def test_kernel_of_another_project_module(tmp_path):
    files = {
        "sim/__init__.py": "",
        "sim/kernels.py": HEAD,
        "main.py": (
            "import warp as wp\nfrom sim import kernels\nfrom sim.kernels import step\n\n"
            "def run(x):\n    wp.launch(kernels.step, dim=1, inputs=[x])\n"
            "    wp.get_module('sim.kernels').options.update({'enable_backward': False})\n"
            "    wp.set_module_options({'enable_backward': False})\n"  # this file's module: not launched
            "\ndef run2(x):\n    wp.launch(step, dim=1, inputs=[x])\n"
            "    wp.set_module_options({'enable_backward': False}, module=kernels)\n"
        ),
    }
    found = _wct006(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("main.py", 7), ("main.py", 12)]


def test_options_before_launch_are_fine(tmp_path):
    text = "import warp as wp\n\nwp.set_module_options({'enable_backward': False})\n" + HEAD.split("\n", 2)[2] + (
        "\ndef run(x):\n    wp.get_module(__name__).options.update({'max_unroll': 2})\n    wp.launch(step, dim=1, inputs=[x])\n"
    )
    assert _wct006(lint_snippet(tmp_path, text)) == []


def test_other_module_and_conditional_launch(tmp_path):
    text = HEAD + (
        "\ndef run(x, warm):\n    wp.launch(step, dim=1, inputs=[x])\n    wp.get_module('other.mod').options.update({'x': 1})\n"
        "\ndef run2(x, warm):\n    if warm:\n        wp.launch(step, dim=1, inputs=[x])\n    wp.set_module_options({'enable_backward': False})\n"
    )
    assert _wct006(lint_snippet(tmp_path, text)) == []


def test_save_and_restore_is_not_churn(tmp_path):
    # warp/tests/test_fast_math.py, test_options.py, test_static.py.
    text = HEAD + (
        "\ndef test_fast_math(test, device):\n    wp.set_module_options({'fast_math': True})\n    try:\n"
        "        wp.launch(step, dim=1, inputs=[None], device=device)\n    finally:\n"
        "        wp.set_module_options({'fast_math': False})\n"
        "\ndef test_unroll(test, device):\n    original = dict(wp.get_module_options())\n"
        "    wp.set_module_options({'max_unroll': 3})\n    wp.launch(step, dim=1, inputs=[None], device=device)\n"
        "    wp.set_module_options(original)\n"
    )
    assert _wct006(lint_snippet(tmp_path, text)) == []


def test_unique_kernel_launch_does_not_load_the_file_module(tmp_path):
    text = (
        "import warp as wp\n\n@wp.kernel(module='unique')\ndef own(x: wp.array(dtype=float)):\n    x[0] = 1.0\n"
        "\ndef run(x):\n    wp.launch(own, dim=1, inputs=[x])\n    wp.set_module_options({'enable_backward': False})\n"
    )
    assert _wct006(lint_snippet(tmp_path, text)) == []


def test_helper_in_another_file_changes_options_after_a_launch(tmp_path):
    files = {
        "app/__init__.py": "",
        "app/tuning.py": 'import warp as wp\n\ndef fast():\n    wp.set_module_options({"enable_backward": False}, module="app.pipeline")\n',
        "app/pipeline.py": (
            "import warp as wp\nfrom .tuning import fast\n\n@wp.kernel\ndef square(x: wp.array(dtype=float)):\n"
            "    x[wp.tid()] = x[wp.tid()] * x[wp.tid()]\n\nclass Pipeline:\n    def run(self, x):\n"
            "        wp.launch(square, dim=1, inputs=[x])\n        fast()\n"
        ),
    }
    found = [f for f in lint_files(tmp_path, files) if f.rule == "WCT006"]
    assert [(f.path, f.line) for f in found] == [("app/pipeline.py", 11)]
    assert "`fast()`" in found[0].message and "`square`" in found[0].message


def test_helper_that_launches_before_a_change_here(tmp_path):
    files = {
        "app/__init__.py": "",
        "app/pipeline.py": (
            "import warp as wp\n\n@wp.kernel\ndef square(x: wp.array(dtype=float)):\n"
            "    x[wp.tid()] = x[wp.tid()] * x[wp.tid()]\n\ndef warm_up(x):\n    wp.launch(square, dim=1, inputs=[x])\n\n"
            "def main(x):\n    warm_up(x)\n    wp.set_module_options({'enable_backward': False})\n"
        ),
    }
    found = [f for f in lint_files(tmp_path, files) if f.rule == "WCT006"]
    assert [(f.path, f.line) for f in found] == [("app/pipeline.py", 12)]


def test_helper_changing_another_module_is_fine(tmp_path):
    files = {
        "app/__init__.py": "",
        "app/tuning.py": 'import warp as wp\n\ndef fast():\n    wp.set_module_options({"enable_backward": False}, module="app.other")\n',
        "app/pipeline.py": (
            "import warp as wp\nfrom .tuning import fast\n\n@wp.kernel\ndef square(x: wp.array(dtype=float)):\n"
            "    x[wp.tid()] = x[wp.tid()] * x[wp.tid()]\n\ndef run(x):\n    wp.launch(square, dim=1, inputs=[x])\n    fast()\n"
        ),
    }
    assert [f for f in lint_files(tmp_path, files) if f.rule == "WCT006"] == []


def test_launch_in_an_except_block_may_not_run_and_a_try_body_does(tmp_path):
    text = HEAD + (
        "\ndef fallback(x):\n    try:\n        pass\n    except RuntimeError:\n"
        "        wp.launch(step, dim=1, inputs=[x])\n    wp.set_module_options({'enable_backward': False})\n"
        "\ndef straight(x):\n    try:\n        wp.launch(step, dim=1, inputs=[x])\n    except RuntimeError:\n"
        "        pass\n    wp.set_module_options({'max_unroll': 2})\n"
    )
    found = _wct006(lint_snippet(tmp_path, text))
    assert [f.line for f in found] == [20]
    assert "`step` was launched on line 17" in found[0].message


def test_launch_through_a_kernel_table_is_named_as_written(tmp_path):
    text = HEAD + (
        "\nKERNELS = {'step': step}\n"
        "\ndef run(x):\n    wp.launch(KERNELS['step'], dim=1, inputs=[x])\n    wp.set_module_options({'max_unroll': 2})\n"
    )
    found = _wct006(lint_snippet(tmp_path, text))
    assert [f.line for f in found] == [12]
    assert "`KERNELS['step']` was launched on line 11" in found[0].message


def test_a_stage_table_handed_to_a_library_loop_is_followed_to_its_kernels(tmp_path):
    # Shaped like a pipeline: warmup() hands self.stages (from filters.default_stages()) to
    # a library loop ``for kernel, scale in stages:``; tune() then retargets that module.
    files = {
        "lib/__init__.py": "",
        "lib/filters.py": (
            "import warp as wp\n\n"
            "@wp.kernel\ndef box(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n\n"
            "def default_stages():\n    return [(box, 1)]\n\n"
            "def run_stages(x, stages=None):\n"
            "    if stages is None:\n        stages = default_stages()\n"
            "    for kernel, scale in stages:\n        wp.launch(kernel, dim=x.shape[0] * scale, inputs=[x])\n"
        ),
        "app/__init__.py": "",
        "app/pipeline.py": (
            "import warp as wp\nfrom lib import filters\n\n"
            "class Pipeline:\n"
            "    def __init__(self):\n        self.stages = filters.default_stages()\n\n"
            "    def warmup(self, x):\n        filters.run_stages(x, self.stages)\n\n"
            "    def tune(self):\n        wp.set_module_options({'max_unroll': 4}, module='lib.filters')\n\n"
            "def main(x):\n    p = Pipeline()\n    p.warmup(x)\n    p.tune()\n"
        ),
    }
    found = _wct006(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("app/pipeline.py", 17)]
    assert "`lib.filters`" in found[0].message


def test_an_object_called_through_a_call_alias_runs_the_aliased_method(tmp_path):
    # wavelab-like filters: ``__call__ = forward`` in the class body; the pipeline calls
    # ``self.lowpass(x)``, then a tuning helper changes the filters module's options.
    files = {
        "lab/__init__.py": "",
        "lab/filters.py": "import warp as wp\n\n@wp.kernel\ndef fir(x: wp.array(dtype=float)):\n    x[wp.tid()] = 0.0\n\n"
        "class FIR:\n    def forward(self, x):\n        wp.launch(fir, dim=1, inputs=[x])\n        return x\n\n"
        "    __call__ = forward\n",
        "lab/tuning.py": "import warp as wp\n\ndef fast():\n    wp.set_module_options({'fast_math': True}, module='lab.filters')\n",
        "main.py": "import warp as wp\nfrom lab.filters import FIR\nfrom lab import tuning\n\n"
        "f = FIR()\nx = wp.zeros(4)\nf(x)\ntuning.fast()\nf(x)\n",
    }
    found = [f for f in lint_files(tmp_path, files) if f.rule == "WCT006"]
    assert [(f.path, f.line) for f in found] == [("main.py", 8)]


LOOP_FILES = {
    "lab/__init__.py": "",
    "lab/filters.py": "import warp as wp\n\n@wp.kernel\ndef fir(x: wp.array(dtype=float)):\n    x[wp.tid()] = 0.0\n\n"
    "def apply(x):\n    wp.launch(fir, dim=1, inputs=[x])\n",
    "lab/tuning.py": "import warp as wp\n\ndef fast():\n    wp.set_module_options({'fast_math': True}, module='lab.filters')\n",
    "main.py": "import warp as wp\nfrom lab import filters, tuning\n\ndef main(warmup=2):\n    x = wp.zeros(4)\n"
    "    for step in range(10):\n        if GUARD:\n            tuning.fast()\n        filters.apply(x)\n\nmain()\n",
}


def test_options_changed_on_a_later_pass_of_the_loop_that_launches_the_module(tmp_path):
    # A fresh-eyes app: ``if step == args.warmup: use_fast_math(True)`` before ``pipe.step()``
    # in the main loop (measured: wavelab.filters 2 hashes, the second load with fast_math).
    files = dict(LOOP_FILES, **{"main.py": LOOP_FILES["main.py"].replace("GUARD", "step == warmup")})
    found = [f for f in lint_files(tmp_path / "later", files) if f.rule == "WCT006"]
    assert [(f.path, f.line) for f in found] == [("main.py", 8)]
    assert "on a later pass of this loop" in found[0].message


def test_options_changed_on_the_first_pass_or_on_every_pass_before_the_launch_are_fine(tmp_path):
    for name, guard in (("first", "step == 0"), ("flag", "not step"), ("always", "True")):
        main = LOOP_FILES["main.py"].replace("GUARD", guard)
        if name == "always":
            main = main.replace("        if True:\n            tuning.fast()\n", "        tuning.fast()\n")
        files = dict(LOOP_FILES, **{"main.py": main})
        assert [f for f in lint_files(tmp_path / name, files) if f.rule == "WCT006"] == [], name


def test_a_module_named_by_its_dunder_name(tmp_path):
    # ``tune_module(diagnostics.__name__, fast_math=True)`` after ``report()`` launched it.
    files = dict(LOOP_FILES, **{
        "lab/tuning.py": "import warp as wp\n\ndef tune(name, **options):\n    wp.set_module_options(options, module=name)\n",
        "main.py": "import warp as wp\nfrom lab import filters, tuning\n\nx = wp.zeros(4)\nfilters.apply(x)\n"
        "tuning.tune(filters.__name__, fast_math=True)\nfilters.apply(x)\n",
    })
    found = [f for f in lint_files(tmp_path, files) if f.rule == "WCT006"]
    assert [(f.path, f.line) for f in found] == [("main.py", 6)] and "`lab.filters`" in found[0].message
