"""WCT015 captured-module-variable: the shapes of Warp's own fem optimisation examples.

``example_elastic_shape_optimization`` and ``example_darcy_ls_optimization`` both build
``__main__`` twice on CPU: their render interpolates an integrand after ``loss =
example.step()``, and warp.fem adds the interpolation's functions to the loaded module (in
darcy's also where a step's integrand already calls that integrand). Renamed, the variable
costs nothing (tests/programs/captured_script_variable runs the shape under the probe)."""

from __future__ import annotations

from .helpers import lint_files, rule_filter

_only = rule_filter("WCT015")

HEAD = '''import warp as wp
import warp.fem as fem


@fem.integrand
def helper_field(s: fem.Sample, u: fem.Field):
    return u(s)


@fem.integrand
def energy_form(s: fem.Sample, u: fem.Field):
    return helper_field(s, u) * 2.0


@fem.integrand
def report_field(s: fem.Sample, u: fem.Field):
    return u(s)


@wp.kernel
def add_penalty(loss: wp.array(dtype=float), weight: float):
    for i in range(3):
        loss[0] += weight


class Example:
    def __init__(self, field):
        self.field = field
        self.loss = wp.zeros(1, dtype=float)

    def step(self):
        fem.integrate(energy_form, fields={"u": self.field})
        wp.launch(add_penalty, dim=1, inputs=[self.loss, 0.5])
        return float(self.loss.numpy()[0])

    def render(self):
        fem.interpolate({render}, fields={"u": self.field})


'''


def _lint(tmp_path, main: str, render: str = "report_field"):
    return _only(lint_files(tmp_path, {"opt.py": HEAD.replace("{render}", render) + main}))


def _line(main: str, text: str) -> int:
    return HEAD.count("\n") + main.splitlines().index(text) + 1


def test_loss_set_before_an_integrand_first_built_after_the_module_loaded(tmp_path):
    main = 'if __name__ == "__main__":\n    example = Example(None)\n    for k in range(5):\n        loss = example.step()\n        example.render()\n'
    found = _lint(tmp_path, main)
    assert [(f.path, f.line) for f in found] == [("opt.py", _line(main, "        loss = example.step()"))]
    assert "reads a parameter of that name" in found[0].message and "`report_field`" in found[0].message


def test_a_loop_variable_of_the_kernel_is_captured_the_same_way(tmp_path):
    main = "example = Example(None)\nexample.step()\nfor i in range(3):\n    example.render()\n"
    found = _lint(tmp_path, main)
    assert [f.line for f in found] == [_line(main, "for i in range(3):")]
    assert "`add_penalty` (line 21) reads a loop variable of that name" in found[0].message


def test_an_integrand_another_one_calls_is_still_a_new_interpolation(tmp_path):
    # darcy's shape: render interpolates an integrand that the step's integrand calls (measured: rebuilt)
    main = 'if __name__ == "__main__":\n    example = Example(None)\n    for k in range(5):\n        loss = example.step()\n        example.render()\n'
    found = _lint(tmp_path, main, render="helper_field")
    assert [f.line for f in found] == [_line(main, "        loss = example.step()")]
    assert "`fem.interpolate` of integrand `helper_field`" in found[0].message


def test_calls_that_already_ran_before_the_variable_was_set_add_nothing(tmp_path):
    main = "example = Example(None)\nexample.render()\nfor k in range(5):\n    loss = example.step()\n    example.render()\n"
    assert _lint(tmp_path, main) == []


def test_a_variable_set_before_the_first_launch_is_hashed_the_same_every_time(tmp_path):
    main = "weight = 0.5\nexample = Example(None)\nexample.step()\nexample.render()\n"
    assert _lint(tmp_path, main) == []


def test_values_warp_does_not_hash_and_names_the_kernel_assigns(tmp_path):
    main = (
        "example = Example(None)\nexample.step()\n"
        "loss = wp.zeros(1, dtype=float)\n"  # an array: not a Warp value
        "weight = 'heavy'\n"  # a string
        "example.render()\n"
    )
    assert _lint(tmp_path, main) == []
    assigned = HEAD.replace("    for i in range(3):\n        loss[0] += weight\n", "    w = weight\n    loss[0] += w\n")
    main = "example = Example(None)\nexample.step()\nw = 2.0\nexample.render()\n"
    assert _only(lint_files(tmp_path / "assigned", {"opt.py": assigned.replace("{render}", "report_field") + main})) == []


def test_code_in_a_function_binds_no_module_variable(tmp_path):
    main = "def main():\n    example = Example(None)\n    for k in range(5):\n        loss = example.step()\n        example.render()\n\n\nmain()\n"
    assert _lint(tmp_path, main) == []


def test_a_unique_module_kernel_is_not_in_the_rehashed_module(tmp_path):
    head = HEAD.replace("@wp.kernel\ndef add_penalty", '@wp.kernel(module="unique")\ndef add_penalty')
    main = "example = Example(None)\nloss = example.step()\nexample.render()\n"
    assert _only(lint_files(tmp_path, {"opt.py": head.replace("{render}", "report_field") + main})) == []
