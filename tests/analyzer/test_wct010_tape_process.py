"""WCT010 and a tape's calls on objects the model cannot type: which classes can they be?

``self.solver.step()`` on a tape may run any project method named ``step``, but not those of
an example or a test that the tape's process never loads. newton's diffsim examples tape
``self.solver.step()``; every other example has an ``Example.step`` of its own, and counting
them made 251 of newton's modules "differentiated" (the probe measured the other examples'
modules built with backward code nothing runs: cable_twist 0.31 s, mpm_beam_twist 0.25 s).
A library's tape over a user's objects is another matter: the IK solver differentiates
``objective.compute_residuals()``, and an example that imports it and subclasses the objective
is loaded where that tape records."""

from __future__ import annotations

from .helpers import lint_files, rule_filter

_only = rule_filter("WCT010")

LIB = {
    "lib/__init__.py": "from .solver import Solver\nfrom .ik import IKSolver\n",
    "lib/solver.py": (
        "import warp as wp\n\n\n"
        "class Solver:\n"
        "    def step(self, x):\n"
        "        x.fill_(1.0)\n"
    ),
    "lib/ik.py": (
        "import warp as wp\n\n\n"
        "class IKSolver:\n"
        "    def __init__(self, objectives):\n"
        "        self.objectives = objectives\n\n"
        "    def solve(self, x):\n"
        "        tape = wp.Tape()\n"
        "        with tape:\n"
        "            for objective in self.objectives:\n"
        "                objective.compute_residuals(x)\n"
        "        tape.backward()\n"
    ),
}

DIFFSIM = (
    "import warp as wp\n\nimport lib\n\n\n"
    "class Example:\n"
    "    def __init__(self, solver):\n"
    "        self.solver = solver\n\n"
    "    def forward(self, x):\n"
    "        self.solver.step(x)\n\n"
    "    def run(self, x):\n"
    "        tape = wp.Tape()\n"
    "        with tape:\n"
    "            self.forward(x)\n"
    "        tape.backward()\n\n\n"
    "if __name__ == '__main__':\n"
    "    Example(lib.Solver()).run(wp.zeros(4, dtype=float, requires_grad=True))\n"
)

OTHER_EXAMPLE = (
    "import warp as wp\n\nimport lib\n\n\n"
    "@wp.kernel\n"
    "def push(x: wp.array(dtype=float)):\n"
    "    x[wp.tid()] += 1.0\n\n\n"
    "class Example:\n"
    "    def step(self, x):\n"
    "        wp.launch(push, dim=x.shape[0], inputs=[x])\n\n\n"
    "if __name__ == '__main__':\n"
    "    Example().step(wp.zeros(4, dtype=float))\n"
)


def test_another_examples_step_is_not_what_a_diffsim_tape_runs(tmp_path):
    files = {**LIB, "examples/example_diffsim.py": DIFFSIM, "examples/example_push.py": OTHER_EXAMPLE}
    found = _only(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("examples/example_push.py", 6)]


def test_an_example_that_imports_the_tape_can_be_what_it_runs(tmp_path):
    # The diffsim example imports the other one: its `Example.step` may be the solver's.
    importing = DIFFSIM.replace("import lib\n", "import lib\nimport example_push  # noqa: F401\n")
    files = {**LIB, "examples/example_diffsim.py": importing, "examples/example_push.py": OTHER_EXAMPLE}
    assert _only(lint_files(tmp_path, files)) == []


def test_a_library_tape_runs_the_objectives_of_the_examples_that_import_it(tmp_path):
    custom = (
        "import warp as wp\n\nimport lib\n\n\n"
        "@wp.kernel\n"
        "def residuals(x: wp.array(dtype=float)):\n"
        "    x[wp.tid()] = 0.0\n\n\n"
        "class Avoid:\n"
        "    def compute_residuals(self, x):\n"
        "        wp.launch(residuals, dim=x.shape[0], inputs=[x])\n\n\n"
        "if __name__ == '__main__':\n"
        "    lib.IKSolver([Avoid()]).solve(wp.zeros(4, dtype=float, requires_grad=True))\n"
    )
    assert _only(lint_files(tmp_path, {**LIB, "examples/example_ik_custom.py": custom})) == []
