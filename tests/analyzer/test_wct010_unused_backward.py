"""WCT010 unused-backward: decided per Warp module from the whole project."""

from __future__ import annotations

from warp_ct.analyzer import batch
from warp_ct.analyzer.fixes import apply_fixes
from warp_ct.analyzer.model import Severity
from warp_ct.analyzer.rules import wct010_unused_backward as wct010
from warp_ct.config import load_config

from .helpers import lint_files

K = "@wp.kernel\ndef {name}(x: wp.array(dtype=float)):\n    i = wp.tid()\n    x[i] = x[i] * 2.0\n"


def kernels(*names, head="import warp as wp\n\n"):
    return head + "\n".join(K.format(name=n) for n in names)


def _only(findings):
    return [(f.path, f.line) for f in findings if f.rule == "WCT010"]


def test_tape_over_one_module_says_nothing_about_another(tmp_path):
    files = {
        "sim/__init__.py": "",
        "sim/physics.py": kernels("integrate"),
        "sim/render.py": kernels("shade", "blit"),
        "train.py": (
            "import warp as wp\nfrom sim.physics import integrate\nfrom sim import render\n\n"
            "def step(x, loss):\n"
            "    tape = wp.Tape()\n"
            "    with tape:\n"
            "        wp.launch(integrate, dim=x.shape, inputs=[x])\n"
            "        y = wp.zeros_like(x)\n"
            "    tape.backward(loss)\n"
            "    wp.launch(render.shade, dim=x.shape, inputs=[x])\n"
            "\nif __name__ == '__main__':\n    step(wp.zeros(4), None)\n"
        ),
    }
    findings = lint_files(tmp_path, files)
    assert _only(findings) == [("sim/render.py", 3)]
    f = next(f for f in findings if f.rule == "WCT010")
    assert f.severity == Severity.WARNING and "sim.render" in f.message and "2 kernel" in f.message
    out = apply_fixes(files["sim/render.py"], [f], unsafe=True).text
    assert out.startswith('import warp as wp\n\nwp.set_module_options({"enable_backward": False})\n\n@wp.kernel')


def test_opaque_tape_body_counts_for_every_reachable_module(tmp_path):
    files = {
        "lib/__init__.py": "",
        "lib/ops.py": kernels("square") + "\ndef apply(x):\n    wp.launch(square, dim=x.shape, inputs=[x])\n",
        "lib/viz.py": kernels("paint") + "\ndef show(x):\n    wp.launch(paint, dim=x.shape, inputs=[x])\n",
        "fit.py": (
            "import warp as wp\nfrom lib import ops\n\n"
            "def fit(x, loss):\n    with wp.Tape() as tape:\n        ops.apply(x)\n    tape.backward(loss)\n"
        ),
    }
    assert _only(lint_files(tmp_path, files)) == [("lib/viz.py", 3)]


def test_adjoint_launch_and_requires_grad_count_as_differentiation(tmp_path):
    files = {
        "a.py": kernels("k") + "\ndef back(x, adj):\n    wp.launch(k, dim=1, inputs=[x], adj_inputs=[adj], adjoint=True)\n",
        "b.py": kernels("m") + "\ndef run(model):\n    wp.launch(m, dim=1, inputs=[model.x])\n",
        "c.py": "import warp as wp\nimport b\n\ndef build():\n    return wp.zeros(3, requires_grad=True)\n",
    }
    assert _only(lint_files(tmp_path, files)) == []


def test_library_nobody_launches_is_silent(tmp_path):
    files = {"mylib/__init__.py": "", "mylib/kernels.py": kernels("k1", "k2")}
    assert _only(lint_files(tmp_path, files)) == []


def test_backward_already_off(tmp_path):
    launch = "\ndef run(x):\n    wp.launch(k, dim=1, inputs=[x])\n"
    files = {
        "own.py": kernels("k", head='import warp as wp\n\nwp.set_module_options({"enable_backward": False})\n') + launch,
        "deco.py": "import warp as wp\n\n@wp.kernel(enable_backward=False)\ndef k(x: wp.array(dtype=float)):\n    pass\n" + launch,
        "pkg/__init__.py": "import warp as wp\nwp.get_module('pkg.sub').options.update({'enable_backward': False})\n",
        "pkg/sub.py": kernels("k") + launch,
        "entry.py": "import warp as wp\nwp.config.enable_backward = False\nimport late\n",
        "late.py": kernels("k") + launch,
    }
    assert _only(lint_files(tmp_path, files)) == []


def test_explicit_enable_backward_true_without_differentiation(tmp_path):
    files = {
        "solver.py": kernels("k", head='import warp as wp\n\nwp.set_module_options({"enable_backward": True})\n')
        + "\ndef run(x):\n    wp.launch(k, dim=1, inputs=[x])\n",
        "lib.py": kernels("j", head='import warp as wp\n\nwp.set_module_options({"enable_backward": True})\n'),
    }
    findings = [f for f in lint_files(tmp_path, files) if f.rule == "WCT010"]
    assert [(f.path, f.line, f.severity) for f in findings] == [
        ("lib.py", 3, Severity.INFO), ("solver.py", 3, Severity.WARNING),
    ]  # fmt: skip
    out = apply_fixes(files["lib.py"], [findings[0]], unsafe=True).text
    assert '{"enable_backward": False}' in out


def test_launch_through_self_inside_tape_is_opaque(tmp_path):
    files = {
        "model.py": kernels("fwd") + "\nclass M:\n    kernel = fwd\n",
        "opt.py": (
            "import warp as wp\nimport model\n\n"
            "def grad(m, x, loss):\n    tape = wp.Tape()\n    with tape:\n"
            "        wp.launch(m.kernel, dim=1, inputs=[x])\n        wp.launch(model.fwd, dim=1, inputs=[x])\n"
            "    tape.backward(loss)\n"
        ),
    }
    assert _only(lint_files(tmp_path, files)) == []


def test_tape_over_a_factory_made_kernel_counts_as_opaque(tmp_path):
    # shaped like a cast test: kernels come from a helper, the tape launches the variable
    text = kernels("cast16") + (
        "\ndef getkernel(f, suffix):\n    return wp.Kernel(f, key=f.__name__ + suffix)\n"
        "\ndef test_cast(a, b, grads):\n"
        "    kernel_16 = getkernel(cast16, suffix='f')\n"
        "    tape = wp.Tape()\n    with tape:\n        wp.launch(kernel=kernel_16, dim=1, inputs=[a])\n"
        "    tape.backward(grads=grads)\n    wp.launch(cast16, dim=1, inputs=[a])\n"
    )
    assert _only(lint_files(tmp_path, {"test_vec.py": text})) == []


def test_library_whose_api_asks_for_gradients_gets_information_pointing_to_the_entry_point(tmp_path):
    # A library whose code never asks for gradients: its own forward-only modules are its own
    # to configure (a warning with the module-level fix), whatever its docstrings say. One whose
    # public API takes `requires_grad` (warp-nn's layers): callers may record its kernels on a
    # tape of their own, so at most information.
    lib = {
        "lib/__init__.py": "",
        "lib/ops.py": kernels("square") + "\ndef apply(x):\n    wp.launch(square, dim=x.shape, inputs=[x])\n",
        "lib/examples/demo.py": "import warp as wp\nfrom lib.ops import apply\n\nif __name__ == '__main__':\n    apply(wp.zeros(4))\n",
    }
    found = [f for f in lint_files(tmp_path / "a", lib) if f.rule == "WCT010"]
    assert [(f.path, f.severity) for f in found] == [("lib/ops.py", Severity.WARNING)]
    # Words decide nothing (issue 36 item 4): "gradients are disabled" is no promise of gradients.
    worded = dict(lib, **{"lib/ops.py": '"""Differentiable operators; gradients are disabled here."""\n' + lib["lib/ops.py"]})
    found = [f for f in lint_files(tmp_path / "w", worded) if f.rule == "WCT010"]
    assert [(f.path, f.severity) for f in found] == [("lib/ops.py", Severity.WARNING)]
    graded = dict(lib, **{"lib/ops.py": kernels("square") + (
        "\ndef apply(x, requires_grad=False):\n    y = wp.zeros_like(x, requires_grad=requires_grad)\n"
        "    wp.launch(square, dim=x.shape, inputs=[x, y])\n"),
        "main.py": "import warp as wp\nfrom lib.ops import apply\n\napply(wp.zeros(4))\n"})  # fmt: skip
    found = [f for f in lint_files(tmp_path / "b", graded) if f.rule == "WCT010"]
    assert [(f.path, f.severity) for f in found] == [("lib/ops.py", Severity.INFO)] and "public API" in found[0].message
    assert "entry point" in found[0].message and "wp.config.enable_backward = False" in found[0].message
    assert found[0].fixes == ()
    # A private helper is no API: only the project's own code runs it.
    private = dict(graded, **{"lib/ops.py": graded["lib/ops.py"].replace("def apply", "def _apply"),
                              "main.py": "import warp as wp\nfrom lib.ops import _apply\n\n_apply(wp.zeros(4))\n"})  # fmt: skip
    found = [f for f in lint_files(tmp_path / "c", private) if f.rule == "WCT010"]
    assert [(f.path, f.severity) for f in found] == [("lib/ops.py", Severity.WARNING)]


def test_no_entry_point_switch_where_the_project_records_tapes(tmp_path):
    # The info's advice: `wp.config.enable_backward = False` at an entry point would also zero
    # the gradients of the module the project's own tape records; say the module's option.
    files = {
        "lib/__init__.py": "",
        "lib/ops.py": kernels("square") + (
            "\ndef apply(x, requires_grad=False):\n    wp.launch(square, dim=x.shape, inputs=[x])\n"),
        "lib/fit.py": kernels("loss") + (
            "\ndef fit(x):\n    tape = wp.Tape()\n    with tape:\n        wp.launch(loss, dim=x.shape, inputs=[x])\n"
            "    tape.backward()\n"),
        "main.py": "import warp as wp\nfrom lib.ops import apply\n\napply(wp.zeros(4))\n",
    }  # fmt: skip
    found = [f for f in lint_files(tmp_path, files) if f.rule == "WCT010"]
    assert [(f.path, f.severity) for f in found] == [("lib/ops.py", Severity.INFO)]
    assert "wp.get_module(\"lib.ops\").options.update" in found[0].message
    assert "not `wp.config.enable_backward = False`" in found[0].message


def test_the_word_gradient_promises_callers_nothing_and_a_followed_tape_elsewhere_neither(tmp_path):
    # SPH code speaks of "the pressure gradient": calculus, not autodiff, and words decide
    # nothing anyway. A tape of the project's own that the model follows (over `sph.fit`) does
    # not reach `sph.pressure`: the project differentiates what it chose, so still a warning
    # (warpsphcore's neighbour search beside its taped operators). A tape whose reach the model
    # cannot tell (a generic wrapper replaying Warp tapes: nvalchemiops.torch.autograd) may
    # record any API module: information.
    lib = {
        "sph/__init__.py": "",
        "sph/pressure.py": '"""Least-squares pressure gradient of the neighbours."""\n' + kernels("grad_p")
        + "\ndef apply(x):\n    wp.launch(grad_p, dim=x.shape, inputs=[x])\n",
        "main.py": "import warp as wp\nfrom sph.pressure import apply\n\napply(wp.zeros(4))\n",
    }
    found = [f for f in lint_files(tmp_path / "a", lib) if f.rule == "WCT010"]
    assert [(f.path, f.severity) for f in found] == [("sph/pressure.py", Severity.WARNING)]
    taping = dict(lib, **{"sph/fit.py": kernels("loss") + (
        "\ndef fit(x):\n    tape = wp.Tape()\n    with tape:\n        wp.launch(loss, dim=x.shape, inputs=[x])\n"
        "    tape.backward()\n")})  # fmt: skip
    found = [f for f in lint_files(tmp_path / "b", taping) if f.rule == "WCT010"]
    assert [(f.path, f.severity) for f in found] == [("sph/pressure.py", Severity.WARNING)]
    replaying = dict(lib, **{"sph/autograd.py": (
        "import warp as wp\n\n\ndef record(state):\n    state.tape = wp.Tape()\n    return state.tape\n")})  # fmt: skip
    found = [f for f in lint_files(tmp_path / "c", replaying) if f.rule == "WCT010"]
    assert [(f.path, f.severity) for f in found] == [("sph/pressure.py", Severity.INFO)]
    assert "not `wp.config.enable_backward = False`" in found[0].message


def test_torch_autograd_function_with_hand_written_backward_does_not_differentiate(tmp_path):
    files = {
        "app/__init__.py": "",
        "app/kernels.py": kernels("fwd", "bwd"),
        "app/__main__.py": (
            "import torch\nimport warp as wp\nfrom .kernels import bwd, fwd\n\n"
            "class Scale(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
            "        wp.launch(fwd, dim=4, inputs=[wp.from_torch(x)])\n        return x\n\n"
            "    @staticmethod\n    def backward(ctx, grad):\n        wp.launch(bwd, dim=4, inputs=[wp.from_torch(grad)])\n"
            "        return grad\n\nloss = Scale.apply(torch.ones(4)).sum()\nloss.backward()\n"
        ),
    }
    found = [f for f in lint_files(tmp_path, files) if f.rule == "WCT010"]
    assert [(f.path, f.severity) for f in found] == [("app/kernels.py", Severity.WARNING)]


def test_enable_backward_true_from_a_factory_default(tmp_path):
    files = {
        "app/__init__.py": "",
        "app/ops.py": (
            "import warp as wp\n\ndef make_blur(radius: int, enable_backward=True):\n"
            "    @wp.kernel(enable_backward=enable_backward, module='unique')\n    def blur(x: wp.array(dtype=float)):\n"
            "        x[wp.tid()] = x[wp.tid()] * float(radius)\n    return blur\n"
        ),
        "app/__main__.py": "import warp as wp\nfrom .ops import make_blur\n\nwp.launch(make_blur(2), dim=4, inputs=[wp.zeros(4)])\n",
    }
    found = [f for f in lint_files(tmp_path, files) if f.rule == "WCT010"]
    assert [(f.path, f.line, f.column) for f in found] == [("app/ops.py", 3, 44)]
    assert "explicitly" in found[0].message
    fixed = apply_fixes(files["app/ops.py"], found, unsafe=True).text
    assert "def make_blur(radius: int, enable_backward=False):" in fixed


def test_kernels_picked_from_a_table_and_handed_to_a_helper_have_consumers(tmp_path):
    # physicsnemo's derivative ops: ``kernel = _FORWARD_KERNELS[order]`` then a helper's
    # ``wp.launch(kernel=kernel, ...)``; the kernels' names never appear in a launch.
    files = {
        "ops/__init__.py": "",
        "ops/kernels.py": kernels("grad1", "grad2") + "\nFORWARD_KERNELS = {1: grad1, 2: grad2}\n",
        "ops/launch.py": (
            "import warp as wp\nfrom ops.kernels import FORWARD_KERNELS\n\n"
            "def _launch(kernel, x):\n    wp.launch(kernel=kernel, dim=x.shape, inputs=[x])\n\n"
            "def gradient(x, order):\n    _launch(FORWARD_KERNELS[order], x)\n"
        ),
        "main.py": "import warp as wp\nfrom ops.launch import gradient\n\ngradient(wp.zeros(4), 1)\n",
    }
    findings = lint_files(tmp_path, files)
    assert _only(findings) == [("ops/kernels.py", 3)]
    assert "launched from ops.launch" in next(f for f in findings if f.rule == "WCT010").message
    # A tape over the helper's call differentiates them: silent again.
    files["main.py"] = (
        "import warp as wp\nfrom ops.launch import gradient\n\n"
        "x = wp.zeros(4, requires_grad=True)\nwith wp.Tape() as tape:\n    gradient(x, 1)\n"
    )
    assert _only(lint_files(tmp_path, files)) == []


def test_tape_over_a_method_of_unknown_type_differentiates_what_methods_of_that_name_launch(tmp_path):
    # skrl's warp agents: ``with wp.Tape(): self.policy.act(...)``; the model's ``act`` calls
    # ``clamp`` re-exported by ``from .ops import *``, which launches ``_clamp[array.ndim]``.
    files = {
        "rl/__init__.py": "",
        "rl/framework/__init__.py": "from .ops import *\n",
        "rl/framework/ops.py": kernels("_clamp_1d", "_clamp_2d") + (
            "\n_clamp = [None, _clamp_1d, _clamp_2d]\n\n"
            "def clamp(array):\n    wp.launch(_clamp[array.ndim], dim=array.shape, inputs=[array])\n    return array\n"
        ),
        "rl/model.py": (
            "from rl.framework import clamp\n\n"
            "class DeterministicMixin:\n    def act(self, x):\n        return clamp(x)\n"
        ),
        "rl/agent.py": (
            "import warp as wp\n\n"
            "class DDPG:\n    def __init__(self, policy):\n        self.policy = policy\n\n"
            "    def update(self, x, loss):\n        with wp.Tape() as tape:\n            self.policy.act(x)\n"
            "        tape.backward(loss)\n"
        ),
        "main.py": "import warp as wp\nfrom rl.model import DeterministicMixin\n\nDeterministicMixin().act(wp.zeros(4))\n",
    }
    assert _only(lint_files(tmp_path, files)) == []
    # Without the tape the same launches waste their backward code.
    files["rl/agent.py"] = "class DDPG:\n    def update(self, x):\n        self.policy.act(x)\n"
    assert _only(lint_files(tmp_path, files)) == [("rl/framework/ops.py", 3)]


def test_a_tape_over_a_copied_table_of_kernels_differentiates_only_those(tmp_path):
    # ``self.terms = list(TERMS)`` looped inside the tape: the model reads the copy as the
    # table, so the forward-only telemetry module is still reported.
    files = {
        "fit/__init__.py": "",
        "fit/terms.py": (
            "import warp as wp\n\n"
            "@wp.kernel\ndef l2(x: wp.array(dtype=float), loss: wp.array(dtype=float)):\n"
            "    wp.atomic_add(loss, 0, x[wp.tid()] * x[wp.tid()])\n\n"
            "TERMS = [(l2, 1.0)]\n"
        ),
        "fit/telemetry.py": (
            "import warp as wp\n\n"
            "@wp.kernel\ndef moments(x: wp.array(dtype=float), out: wp.array(dtype=float)):\n"
            "    wp.atomic_add(out, 0, x[wp.tid()])\n\n"
            "def log(x, out):\n    wp.launch(moments, dim=x.shape[0], inputs=[x, out])\n"
        ),
        "fit/trainer.py": (
            "import warp as wp\nfrom fit import telemetry\nfrom fit.terms import TERMS\n\n"
            "class Trainer:\n"
            "    def __init__(self):\n        self.terms = list(TERMS)\n\n"
            "    def step(self, x, loss, out):\n"
            "        tape = wp.Tape()\n        with tape:\n"
            "            for kernel, weight in self.terms:\n"
            "                wp.launch(kernel, dim=x.shape[0], inputs=[x, loss])\n"
            "        tape.backward(loss)\n"
            "        telemetry.log(x, out)\n"
        ),
    }
    found = [f for f in lint_files(tmp_path, files) if f.rule == "WCT010"]
    assert [f.path for f in found] == ["fit/telemetry.py"]


_UNIQUE = "@wp.kernel(module=\"unique\"{extra})\ndef {name}(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n\n"


def _unique_app(extra_by_name: dict[str, str], body: str, head: str = "import warp as wp\n\n") -> dict[str, str]:
    kernels_text = "".join(_UNIQUE.format(name=name, extra=extra) for name, extra in extra_by_name.items())
    return {"app/__init__.py": "", "app/kernels.py": head + kernels_text,
            "app/__main__.py": "import warp as wp\nfrom app.kernels import *\n\nx = wp.zeros(4)\n" + body}  # fmt: skip


def test_unique_kernel_compiles_backward_code_of_its_own(tmp_path):
    # Each unique kernel is a module of its own; only the decorator can turn its backward
    # code off. Kernels that say so, or carry module_options (which may say so), are left.
    files = _unique_app({"solo": "", "off": ", enable_backward=False", "opts": ", module_options=OPTS"},
                        "".join(f"wp.launch({k}, dim=4, inputs=[x])\n" for k in ("solo", "off", "opts")),
                        head="import warp as wp\n\nOPTS = {'enable_backward': False}\n\n")  # fmt: skip
    findings = [f for f in lint_files(tmp_path, files) if f.rule == "WCT010"]
    assert [(f.path, f.line) for f in findings] == [("app/kernels.py", 5)]
    assert "`solo` has a module of its own" in findings[0].message
    fixed = apply_fixes((tmp_path / "app/kernels.py").read_text(), [findings[0]], unsafe=True).text
    assert '@wp.kernel(module="unique", enable_backward=False)\ndef solo' in fixed


def test_unique_kernel_on_a_tape_keeps_its_backward_code(tmp_path):
    body = "tape = wp.Tape()\nwith tape:\n    wp.launch(taped, dim=4, inputs=[x])\nwp.launch(plain, dim=4, inputs=[x])\n"
    findings = lint_files(tmp_path, _unique_app({"taped": "", "plain": ""}, body))
    assert not [f for f in findings if f.rule == "WCT010" and "taped" in f.message]


def test_unique_kernels_where_the_run_turns_backward_off(tmp_path):
    files = _unique_app({"solo": ""}, "wp.launch(solo, dim=4, inputs=[x])\n")
    files["app/__main__.py"] = "import warp as wp\nwp.config.enable_backward = False\n" + files["app/__main__.py"]
    assert _only(lint_files(tmp_path, files)) == []


def test_unique_kernel_in_a_file_that_turns_backward_off_is_wct013s(tmp_path):
    files = _unique_app({"solo": ""}, "wp.launch(solo, dim=4, inputs=[x])\n",
                        head="import warp as wp\n\nwp.set_module_options({'enable_backward': False})\n\n")  # fmt: skip
    codes = [f.rule for f in lint_files(tmp_path, files)]
    assert "WCT013" in codes and "WCT010" not in codes


def test_the_message_names_the_runs_that_keep_backward_code(tmp_path):
    # `train.py` turns backward code off before importing the kernels; `view.py` does not:
    # the finding holds for the viewer's run, and says so.
    files = {
        "pyproject.toml": "[project]\nname = 'sim'\nversion = '0'\n",
        "sim/__init__.py": "",
        "sim/physics.py": kernels("integrate"),
        "train.py": "import warp as wp\nwp.config.enable_backward = False\nfrom sim.physics import integrate\n\n"
        "wp.launch(integrate, dim=4, inputs=[wp.zeros(4)])\n",
        "view.py": "import warp as wp\nfrom sim.physics import integrate\n\nwp.launch(integrate, dim=4, inputs=[wp.zeros(4)])\n",
    }
    found = [f for f in lint_files(tmp_path, files) if f.rule == "WCT010"]
    assert [(f.path, f.line) for f in found] == [("sim/physics.py", 3)]
    assert found[0].message.startswith("when `view.py` runs, module `sim.physics` compiles backward")


_HOLDERS = (
    "import warp as wp\nfrom dataclasses import dataclass\nfrom typing import NamedTuple\n\n"
    + K.format(name="scale") + "\n" + K.format(name="shift") + "\n"
    "class Family(NamedTuple):\n    single: wp.Kernel\n    batched: wp.Kernel\n\n"
    "@dataclass\nclass Ops:\n    step: wp.Kernel = shift\n\n"
    "FAMILY = Family(scale, batched=shift)\n"
)


def _holders_project(main: str) -> dict[str, str]:
    """A package whose kernels are held by NamedTuple and dataclass fields, run by ``main``."""
    return {"pkg/__init__.py": "", "pkg/kernels.py": _HOLDERS, "pkg/__main__.py": "import warp as wp\n" + main}


def test_kernels_held_by_named_tuples_and_dataclass_fields_are_followed(tmp_path):
    # `FAMILY.single` (positional field), `ops.step` (the dataclass default): both launched
    # from another module, never on a tape.
    main = ("from pkg.kernels import FAMILY, Ops\n\ndef run(x, ops):\n"
            "    wp.launch(FAMILY.single, dim=4, inputs=[x])\n    wp.launch(ops.step, dim=4, inputs=[x])\n\n"
            "run(wp.zeros(4), Ops())\n")  # fmt: skip
    assert _only(lint_files(tmp_path, _holders_project(main))) == [("pkg/kernels.py", 5)]


def test_a_field_launched_on_a_tape_is_differentiated(tmp_path):
    main = ("from pkg.kernels import FAMILY, Ops\n\nx = wp.zeros(4)\n"
            "tape = wp.Tape()\nwith tape:\n    wp.launch(FAMILY.single, dim=4, inputs=[x])\n"
            "    wp.launch(Ops().step, dim=4, inputs=[x])\n")  # fmt: skip
    assert _only(lint_files(tmp_path, _holders_project(main))) == []


_DECORATOR = (
    "import warp as wp\n\ndef unique_kernel(**kwargs):\n{setdefault}    def deco(f):\n"
    "        return wp.kernel(f, module='unique', **kwargs)\n    return deco\n"
)
_USES = (
    "import warp as wp\nfrom pkg.util import unique_kernel\n\n@unique_kernel({keywords})\n"
    "def elem(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n\n"
    "def run(x):\n    wp.launch(elem, dim=4, inputs=[x])\n"
)


def _decorator_project(keywords: str = "", setdefault: str = "", main: str = "run(wp.zeros(4))\n") -> dict[str, str]:
    return {"pkg/__init__.py": "", "pkg/util.py": _DECORATOR.format(setdefault=setdefault),
            "pkg/ops.py": _USES.format(keywords=keywords),
            "pkg/__main__.py": "import warp as wp\nfrom pkg.ops import run, elem\n\n" + main}  # fmt: skip


def test_a_projects_own_unique_kernel_decorator_is_reported_at_its_wp_kernel_call(tmp_path):
    found = [f for f in lint_files(tmp_path, _decorator_project()) if f.rule == "WCT010"]
    assert [(f.path, f.line) for f in found] == [("pkg/util.py", 5)]
    assert found[0].message.startswith("every kernel made with `unique_kernel` gets a module of its own")


def test_kernel_decorator_whose_uses_or_body_set_the_backward_option(tmp_path):
    assert _only(lint_files(tmp_path, _decorator_project(keywords="enable_backward=False"))) == []
    setdefault = "    kwargs.setdefault('enable_backward', False)\n"
    assert _only(lint_files(tmp_path / "b", _decorator_project(setdefault=setdefault))) == []


def test_kernel_decorator_in_a_project_that_differentiates(tmp_path):
    # Which kernels the tape reaches, the model cannot tell for kernels it does not know.
    main = "x = wp.zeros(4)\ntape = wp.Tape()\nwith tape:\n    wp.launch(elem, dim=4, inputs=[x])\n"
    assert _only(lint_files(tmp_path, _decorator_project(main=main))) == []


def test_a_field_of_a_local_holder_is_followed(tmp_path):
    # `family` is a local of run(): the model keeps it because a launch reads `family.single`.
    main = ("from pkg.kernels import Family, scale, shift\n\ndef run(x):\n"
            "    family = Family(single=scale, batched=shift)\n"
            "    wp.launch(family.single, dim=4, inputs=[x])\n\nrun(wp.zeros(4))\n")  # fmt: skip
    assert _only(lint_files(tmp_path, _holders_project(main))) == [("pkg/kernels.py", 5)]


def test_a_module_the_facts_name_whole_is_decided_without_a_tree(tmp_path, monkeypatch):
    # The kernels' decorators and the end of the import block are facts: the finding and its
    # fix come from the query, and are those the tree check gives where it decides (here,
    # a file that also turns backward code on explicitly for one kernel of its own).
    head = "import math\nimport warp as wp\nfrom os.path import (\n    join,\n    sep,\n)\n\n"
    files = {
        "sim/__init__.py": "",
        "sim/render.py": kernels("shade", "blit", head=head) + "\nprint(join, sep, math.pi)\n",
        "sim/explicit.py": kernels("shade2", head=head) + K.format(name="blur").replace(
            "@wp.kernel", "@wp.kernel(enable_backward=True)"),
        "app.py": (
            "import warp as wp\nfrom sim import render, explicit\n\n"
            "def main(x):\n"
            "    wp.launch(render.shade, dim=1, inputs=[x])\n"
            "    wp.launch(explicit.blur, dim=1, inputs=[x])\n"
            "\nif __name__ == '__main__':\n    main(wp.zeros(4))\n"
        ),
    }
    findings = lint_files(tmp_path, files)
    query_found = [f for f in findings if f.rule == "WCT010" and f.path == "sim/render.py"]
    assert len(query_found) == 1 and "2 kernel(s)" in query_found[0].message
    explicit = [f for f in findings if f.rule == "WCT010" and f.path == "sim/explicit.py"]
    assert [(f.line, "explicitly" in f.message) for f in explicit] == [(12, True)]  # the tree's finding
    fixed = apply_fixes(files["sim/render.py"], query_found, unsafe=True).text
    assert fixed.startswith(head.rstrip("\n") + '\n\nwp.set_module_options({"enable_backward": False})\n\n@wp.kernel')
    # The same module through the tree check gives the same finding and fix.
    monkeypatch.setattr(wct010, "_tree_decides", lambda summary, project: True)
    tree_found = [f for f in lint_files(tmp_path, files) if f.rule == "WCT010" and f.path == "sim/render.py"]
    monkeypatch.undo()
    assert tree_found == query_found
    # A run over the package builds no tree for it.
    batch.run_lint([str(tmp_path / "sim" / "render.py")], load_config(tmp_path))
    assert batch.last_stats.trees == 0


def test_backward_facts_come_from_the_file_facts_not_from_matching_parentheses():
    # Issue 36 item 4: the rule reads launches, tapes, adjoint launches and backward options
    # from the facts (no parentheses or words of its own): a string with a ")" inside a
    # launch, a tape over a call, options by name and for the file itself.
    from warp_ct.analyzer.facts import extract
    from warp_ct.analyzer.rules.wct010_unused_backward import _model_facts

    text = (
        "import warp as wp\n\nwp.set_module_options({'enable_backward': False})\n"
        "wp.get_module('pkg.render').options.update({'enable_backward': False})\n"
        "wp.set_module_options({'enable_backward': True}, module='pkg.train')\n\n"
        "def fit(x, loss):\n    tape = wp.Tape()\n    with tape:\n"
        "        wp.launch(step, dim=x.shape, inputs=[x], device=') not the end')\n"
        "    wp.launch(grad_k, dim=1, inputs=[x], adjoint=True)\n    tape.backward(loss)\n\n"
        "def other(self, x):\n    with wp.Tape():\n        self.model(x)\n"
    )
    facts = _model_facts(extract("m.py", text, "pkg.m", False))
    assert facts.launched == {"step", "grad_k"}
    assert facts.differentiated == {"step", "grad_k"}
    assert facts.opaque  # a tape over `self.model(x)`: a call the rule cannot follow
    assert facts.self_backward is False and not facts.self_backward_unknown
    assert facts.by_name == {"pkg.render": False, "pkg.train": True}
    computed = "import warp as wp\n\nwp.set_module_options(OPTIONS)\n"
    assert _model_facts(extract("c.py", computed, "c", False)).self_backward_unknown


def test_words_in_comments_and_docstrings_decide_nothing():
    # A docstring that speaks of tapes, gradients or ``wp.autograd`` asks for no gradients;
    # a call of Warp's gradcheck, or an adjoint handed to a caller's tape, does.
    from warp_ct.analyzer.facts import extract
    from warp_ct.analyzer.rules.wct010_unused_backward import _model_facts

    words = (
        "import warp as wp\n\n\ndef step(x):\n"
        "    \"\"\"Not for wp.Tape, requires_grad=True or wp.autograd.gradcheck: gradients are disabled.\"\"\"\n"
        "    # wp.config.enable_backward = False\n"
        "    wp.launch(k, dim=1, inputs=[x])\n"
    )
    facts = _model_facts(extract("w.py", words, "w", False))
    assert not (facts.wants_grad or facts.opaque or facts.opaque_text or facts.global_off)
    checked = "import warp as wp\n\n\ndef check(k, x):\n    wp.autograd.gradcheck(k, dim=1, inputs=[x])\n"
    facts = _model_facts(extract("c.py", checked, "c", False))
    assert facts.opaque and facts.opaque_text
    handed = "def step(tape, x, vjp):\n    tape.record_func(vjp, [x])\n"
    assert _model_facts(extract("h.py", handed, "h", False)).wants_grad


def test_a_test_modules_own_kernels_are_not_worth_a_finding(tmp_path):
    # A test file's kernel module is built once per test run and its backward share is a
    # fraction of a second; a library module the tests launch is still the library's.
    test_body = (
        "import warp as wp\nfrom sim.physics import integrate\n\n"
        "@wp.kernel\ndef fill(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n\n"
        "def test_step():\n"
        "    x = wp.zeros(4)\n"
        "    wp.launch(fill, dim=x.shape, inputs=[x])\n"
        "    wp.launch(integrate, dim=x.shape, inputs=[x])\n"
    )
    files = {
        "sim/__init__.py": "",
        "sim/physics.py": kernels("integrate"),
        "tests/__init__.py": "",
        "tests/test_physics.py": test_body,
        "test_standalone.py": test_body,
    }
    assert _only(lint_files(tmp_path, files)) == [("sim/physics.py", 3)]


def test_a_projects_own_vjp_method_is_not_an_autodiff_library(tmp_path):
    # dismech-newton's solver has a hand-made adjoint, ``Solver.vjp``: calling it runs project
    # code the model follows, not JAX's or torch.func's machinery.
    solver = (
        "import warp as wp\nfrom sim.physics import integrate\nfrom sim.loss import residual\n\n"
        "class Solver:\n"
        "    def vjp(self, x):\n"
        "        tape = wp.Tape()\n"
        "        with tape:\n"
        "            wp.launch(residual, dim=x.shape, inputs=[x])\n"
        "        tape.backward()\n\n"
        "    def step(self, x):\n"
        "        wp.launch(integrate, dim=x.shape, inputs=[x])\n"
        "        self.vjp(x)\n\n"
        "def run():\n    Solver().step(wp.zeros(4))\n\n"
        "if __name__ == '__main__':\n    run()\n"
    )
    files = {"sim/__init__.py": "", "sim/physics.py": kernels("integrate"), "sim/loss.py": kernels("residual"),
             "sim/solver.py": solver}
    assert _only(lint_files(tmp_path, files)) == [("sim/physics.py", 3)]
    # JAX's, imported by name, differentiates through code the model does not follow.
    files["sim/solver.py"] = solver.replace("import warp as wp\n", "import warp as wp\nfrom jax import vjp\n").replace(
        "        self.vjp(x)\n", "        vjp(self.step, x)\n")
    assert _only(lint_files(tmp_path, files)) == []


def test_a_tape_over_a_method_of_an_unknown_integrator_differentiates_its_kernels(tmp_path):
    # ``integrator.simulate(x)`` on an object picked at run time: any project method of that
    # name may run on the tape (a callee starting like a builtin, ``int``, is not one).
    files = {
        "sim/__init__.py": "",
        "sim/physics.py": kernels("integrate") + (
            "\n\nclass Integrator:\n    def simulate(self, x):\n"
            "        wp.launch(integrate, dim=x.shape, inputs=[x])\n"
        ),
        "train.py": (
            "import warp as wp\nfrom sim.physics import Integrator\n\nINTEGRATORS = {}\n\n"
            "def train(name, x):\n"
            "    integrator = INTEGRATORS[name]\n"
            "    tape = wp.Tape()\n"
            "    with tape:\n"
            "        integrator.simulate(x)\n"
            "    tape.backward()\n"
            "\nif __name__ == '__main__':\n    INTEGRATORS['euler'] = Integrator()\n    train('euler', wp.zeros(4))\n"
        ),
    }
    assert _only(lint_files(tmp_path, files)) == []


def test_a_test_modules_unique_kernels_are_not_worth_a_finding_either(tmp_path):
    body = (
        "import warp as wp\n\n"
        "@wp.kernel(module='unique')\ndef fill(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n\n"
        "def {name}():\n"
        "    x = wp.zeros(4)\n"
        "    wp.launch(fill, dim=x.shape, inputs=[x])\n"
        "\nif __name__ == '__main__':\n    {name}()\n"
    )
    files = {"util_test.py": body.format(name="test_fill"), "tool.py": body.format(name="main")}
    assert _only(lint_files(tmp_path, files)) == [("tool.py", 3)]


def test_a_test_that_turns_backward_on_explicitly_is_not_reported(tmp_path):
    # Warp's own tests ask for backward code on purpose (test_func_inline, test_cluster_dim).
    body = (
        "import warp as wp\n\n"
        "@wp.kernel(enable_backward=True)\ndef fill(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n\n"
        "def {name}():\n"
        "    x = wp.zeros(4)\n"
        "    wp.launch(fill, dim=x.shape, inputs=[x])\n"
        "\nif __name__ == '__main__':\n    {name}()\n"
    )
    files = {"tests/__init__.py": "", "tests/test_inline.py": body.format(name="test_fill"), "tool.py": body.format(name="main")}
    assert _only(lint_files(tmp_path, files)) == [("tool.py", 3)]


def test_a_helper_in_a_tests_folder_that_is_no_package_is_test_code(tmp_path):
    # ``tests/helpers.py`` without ``tests/__init__.py`` is the module ``helpers``: its folder
    # inside the project says it is test code.
    helper = "import warp as wp\n\n" + K.format(name="fill") + "\ndef run(x):\n    wp.launch(fill, dim=x.shape, inputs=[x])\n"
    files = {
        "pyproject.toml": '[project]\nname = "app"\n',
        "tests/helpers.py": helper,
        "tests/test_fill.py": "import warp as wp\nfrom helpers import run\n\ndef test_fill():\n    run(wp.zeros(4))\n",
        "tool.py": helper + "\nif __name__ == '__main__':\n    run(wp.zeros(4))\n",
    }
    assert _only(lint_files(tmp_path, files)) == [("tool.py", 3)]


_OPTIMIZER = (
    "import warp as wp\n\n\n"
    "class Objective:\n    def residuals(self, x):\n        pass\n\n\n"
    "class Optimizer:\n"
    "    def __init__(self, objectives):\n        self.objectives = objectives\n        self.tape = wp.Tape()\n\n"
    "    def _each(self, fn, x):\n        for obj in self.objectives:\n            fn(obj, x)\n\n"
    "    def _residuals(self, x):\n        def _do(obj, x):\n            obj.residuals(x)\n\n        self._each(_do, x)\n\n"
    "    def jacobian(self, x):\n{body}"
)
_USER = (
    "import warp as wp\n\nfrom pkg.opt import Objective, Optimizer\n\n\n"
    "@wp.kernel\ndef collide(x: wp.array(dtype=float)):\n    x[0] = 1.0\n\n\n"
    "class Avoid(Objective):\n    def residuals(self, x):\n        wp.launch(collide, dim=1, inputs=[x])\n\n\n"
    "def main():\n    Optimizer([Avoid()]).jacobian(wp.zeros(1))\n"
)


def test_a_library_tape_over_a_callback_records_a_users_override(tmp_path):
    # newton's IK: the optimizer tapes `fn(obj, ...)` in a helper handed `_do`, which calls
    # `obj.compute_residuals()` on the user's objective: the user's kernels are differentiated.
    taped = "        with self.tape:\n            self._residuals(x)\n        self.tape.backward()\n"
    files = {"pkg/__init__.py": "", "pkg/opt.py": _OPTIMIZER.format(body=taped), "app.py": _USER}
    assert [f for f in lint_files(tmp_path, files) if f.rule == "WCT010" and f.path == "app.py"] == []
    # A batch drops the calls that resolve to nothing before the rules ask: the same answer.
    results = batch.run_lint([str(tmp_path)], load_config(tmp_path))
    assert [f for r in results for f in r.findings if f.rule == "WCT010" and r.path.endswith("app.py")] == []
    untaped = "        self._residuals(x)\n"
    files["pkg/opt.py"] = _OPTIMIZER.format(body=untaped)
    assert [f.line for f in lint_files(tmp_path, files) if f.rule == "WCT010" and f.path == "app.py"] == [6]
