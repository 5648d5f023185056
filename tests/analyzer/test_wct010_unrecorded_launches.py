"""WCT010 and the model's unrecorded launches: code that runs only while the tape is suspended.

A library's solver step (dismech-newton's ``DiSMechSolver.step``) runs its forward work inside
``suspended_tape()`` and records a hand-made adjoint instead; the adjoint opens tapes of its
own inside another suspension, around calls the model cannot follow (``e.blk.bind(x)``). The
kernels the forward work launches are recorded by no tape: not the user's around ``step``, not
the adjoint's. ``Program.unrecorded_modules`` names their modules; what an untyped call, a
function handed around as a value or a function nothing calls may run outside a suspension
stays recordable, and then the reaches (opaque tapes, a file asking for gradients) decide."""

from __future__ import annotations

from pathlib import Path

from warp_ct.analyzer import batch
from warp_ct.analyzer.coverage import TapeReach
from warp_ct.analyzer.engine import Linter, discover, read_source
from warp_ct.analyzer.program import FunctionRef
from warp_ct.config import load_config

from .helpers import lint_files, write_files

SUSPEND = (
    "import warp as wp\nfrom contextlib import contextmanager\n\n\n"
    "@contextmanager\n"
    "def suspended_tape():\n"
    "    runtime = wp._src.context.runtime\n"
    "    tape, runtime.tape = runtime.tape, None\n"
    "    try:\n"
    "        yield tape\n"
    "    finally:\n"
    "        runtime.tape = tape\n"
)

BLOCKS = (
    "import warp as wp\n\n\n"
    "@wp.kernel\n"
    "def assemble_kernel(x: wp.array(dtype=float)):\n"
    "    i = wp.tid()\n"
    "    x[i] = x[i] * 2.0\n\n\n"
    "@wp.kernel\n"
    "def energy_kernel(x: wp.array(dtype=float)):\n"
    "    i = wp.tid()\n"
    "    x[i] = x[i] * x[i]\n\n\n"
    "class Block:\n"
    "    def assemble(self, x):\n"
    "        wp.launch(assemble_kernel, dim=x.shape, inputs=[x])\n\n"
    "    def energy(self, x):\n"
    "        wp.launch(energy_kernel, dim=x.shape, inputs=[x])\n\n"
    "    def bind(self, x):\n"
    "        return x\n"
)

ELEMENTS = (
    "from types import SimpleNamespace\n\nimport warp as wp\n\n\n"
    "def element_kernels():\n"
    "    @wp.kernel(module=\"unique\")\n"
    "    def penalty(x: wp.array(dtype=float)):\n"
    "        i = wp.tid()\n"
    "        x[i] = x[i] + 1.0\n\n"
    "    @wp.kernel(module=\"unique\")\n"
    "    def forces(x: wp.array(dtype=float)):\n"
    "        i = wp.tid()\n"
    "        x[i] = x[i] * 3.0\n\n"
    "    return SimpleNamespace(penalty=penalty, forces=forces)\n\n\n"
    "class Element:\n"
    "    def __init__(self):\n"
    "        self.k = element_kernels()\n\n"
    "    def _launch(self, kernel, x):\n"
    "        wp.launch(kernel, dim=x.shape, inputs=[x])\n\n"
    "    def begin_step(self, x):\n"
    "        self._launch(self.k.penalty, x)\n"
)

RESIDUAL = (
    "import warp as wp\n\n\n"
    "@wp.kernel\n"
    "def residual(x: wp.array(dtype=float)):\n"
    "    i = wp.tid()\n"
    "    x[i] = x[i] - 1.0\n"
)

ADJOINT = (
    "import warp as wp\n\n"
    "from rods import blocks, residual\n"
    "from rods.state import suspended_tape\n\n\n"
    "class Adjoint:\n"
    "    def vjp(self, solver, x):\n"
    "        with suspended_tape():\n"
    "            tape = wp.Tape()\n"
    "            with tape:\n"
    "                wp.launch(residual.residual, dim=x.shape, inputs=[x])\n"
    "                for e in solver.parts:\n"
    "                    e.blk.bind(x)\n"
    "                    wp.launch(e.blk.k.forces, dim=x.shape, inputs=[x])\n"
    "            tape.backward(grads={x: x})\n"
)

SOLVER = (
    "import warp as wp\n\n"
    "from rods.elements import Element\n"
    "from rods.state import suspended_tape\n\n\n"
    "class Solver:\n"
    "    \"\"\"Under a ``wp.Tape`` a step is recorded as its adjoint.\"\"\"\n\n"
    "    def __init__(self, blocks):\n"
    "        self.blocks = blocks\n"
    "        self.element = Element()\n\n"
    "    def step(self, x):\n"
    "        with suspended_tape() as tape:\n"
    "            self._solve(x)\n"
    "            if tape is not None:\n"
    "                tape.record_func(lambda: self.vjp(x), [x])\n\n"
    "    def _solve(self, x):\n"
    "        self.element.begin_step(x)\n"
    "        for blk in self.blocks:\n"
    "            blk.assemble(x)\n"
    "            blk.energy(x)\n\n"
    "    def vjp(self, x):\n"
    "        from rods.adjoint import Adjoint\n\n"
    "        Adjoint().vjp(self, x)\n"
)


def _library(solver: str = SOLVER, adjoint: str = ADJOINT) -> dict[str, str]:
    """A library (no application entry point): the solver's text names a tape and records none
    of its own (a caller's tape may record what it runs), the adjoint tapes a call it cannot follow."""
    return {
        "rods/__init__.py": "",
        "rods/state.py": SUSPEND,
        "rods/blocks.py": BLOCKS,
        "rods/elements.py": ELEMENTS,
        "rods/residual.py": RESIDUAL,
        "rods/adjoint.py": adjoint,
        "rods/solver.py": solver,
    }


def _wct010(findings) -> list[tuple[str, int]]:
    return sorted((f.path, f.line) for f in findings if f.rule == "WCT010")


def _program(tmp_path: Path, files: dict[str, str]):
    write_files(tmp_path, files)
    linter = Linter(load_config(tmp_path))
    linter.add_to_project(read_source(p) for p in discover([str(tmp_path)], linter.config))
    linter.project.freeze()
    return linter.project.program()


def test_kernels_run_only_inside_a_suspension_are_unrecorded(tmp_path):
    # The forward blocks' kernels run through untyped method calls (``blk.assemble(x)``) in
    # code only the suspended step reaches; the unique ``penalty`` through a helper handed
    # ``self.k.penalty``. The adjoint's tape records ``residual`` and ``forces`` (and runs
    # ``e.blk.bind(x)``, which the model cannot follow: any ``bind`` method, none launching).
    assert _wct010(lint_files(tmp_path, _library())) == [("rods/blocks.py", 4), ("rods/elements.py", 7)]
    program = _program(tmp_path, {})
    assert program.unrecorded_modules() == {"rods.blocks", "unique:rods.elements.penalty"}
    recordable = program.recordable_functions()
    assert FunctionRef("rods.solver", "Solver.step") in recordable  # nothing in view calls it
    assert FunctionRef("rods.blocks", "Block.bind") in recordable  # the adjoint's tape may run it
    assert FunctionRef("rods.solver", "Solver._solve") not in recordable
    assert FunctionRef("rods.blocks", "Block.assemble") not in recordable


def test_an_untyped_call_outside_the_suspension_keeps_its_methods_recordable(tmp_path):
    # ``warm_start`` (nothing in view calls it: a caller's tape may) runs ``blk.assemble``
    # outside every suspension: any ``assemble`` method may be recorded, blocks.py with it.
    solver = SOLVER + "\n    def warm_start(self, x):\n        for blk in self.blocks:\n            blk.assemble(x)\n"
    assert _wct010(lint_files(tmp_path, _library(solver))) == [("rods/elements.py", 7)]


def test_an_untyped_call_in_a_tape_inside_the_suspension_records_its_methods(tmp_path):
    # The adjoint's tape runs ``e.blk.energy(x)``: the model cannot type ``e.blk``, so any
    # ``energy`` method runs recorded, and its kernel's module is differentiated.
    adjoint = ADJOINT.replace("e.blk.bind(x)", "e.blk.energy(x)")
    assert _wct010(lint_files(tmp_path, _library(adjoint=adjoint))) == [("rods/elements.py", 7)]


def test_a_function_handed_around_keeps_what_it_runs_recordable(tmp_path):
    # ``self.hooks = [self._solve]``: whoever holds it may call it under a tape.
    solver = SOLVER.replace("        self.blocks = blocks\n", "        self.blocks = blocks\n        self.hooks = [self._solve]\n")
    assert _wct010(lint_files(tmp_path, _library(solver))) == []


def test_a_recordable_launch_of_a_kernel_the_model_cannot_name_proves_nothing(tmp_path):
    # ``run(kernel, x)`` launches whatever it is handed, and nothing in view calls it: any
    # kernel may be recorded there.
    solver = SOLVER + "\n\ndef run(kernel, x):\n    wp.launch(kernel, dim=x.shape, inputs=[x])\n"
    assert _wct010(lint_files(tmp_path, _library(solver))) == []


def test_without_a_suspension_nothing_is_unrecorded(tmp_path):
    solver = SOLVER.replace("        with suspended_tape() as tape:\n            self._solve(x)\n",
                            "        tape = None\n        if True:\n            self._solve(x)\n")  # fmt: skip
    assert _wct010(lint_files(tmp_path / "lint", _library(solver))) == []
    program = _program(tmp_path / "model", _library(solver))
    assert program.unrecorded_modules() == frozenset()


def test_batch_and_linter_agree_on_untyped_calls(tmp_path):
    # The batch drops the calls that reach no project function (``blk.assemble(x)`` among
    # them) after the model has read them: ``warm_start``'s still keeps blocks.py recordable.
    solver = SOLVER + "\n    def warm_start(self, x):\n        for blk in self.blocks:\n            blk.assemble(x)\n"
    for name, files in (("suspended", _library()), ("warm", _library(solver))):
        root = tmp_path / name
        write_files(root, files)
        results = batch.run_lint([str(root)], load_config(root))
        found = sorted((r.path.removeprefix(str(root) + "/"), f.line) for r in results for f in r.findings if f.rule == "WCT010")
        assert found == _wct010(lint_files(root, files)), name


def test_the_finding_says_why_no_tape_records_them(tmp_path):
    # A user's tape around ``solver.step`` is the doubt a reader has: the message answers it,
    # and names where the unique kernel itself is launched (elements.py, not the adjoint).
    found = {f.path: f.message for f in lint_files(tmp_path, _library()) if f.rule == "WCT010"}
    assert "launched from rods.blocks, only where Warp's tape is suspended" in found["rods/blocks.py"]
    assert "launched from rods.elements, only where" in found["rods/elements.py"]


def test_a_callers_tape_around_the_suspension_makes_no_gradient_api(tmp_path):
    # A user's script steps under a tape of its own with arrays asking for gradients: the
    # public ``Solver.step`` reaches the forward blocks only through the suspension, so the
    # callers' tapes record none of them (a warning, not the library API's information).
    files = _library()
    files["example_fit.py"] = (
        "import warp as wp\nfrom rods.blocks import Block\nfrom rods.solver import Solver\n\n\n"
        "def main():\n"
        "    x = wp.zeros(4, dtype=float, requires_grad=True)\n"
        "    solver = Solver([Block()])\n"
        "    tape = wp.Tape()\n"
        "    with tape:\n"
        "        solver.step(x)\n"
        "    tape.backward(grads={x: x})\n"
    )
    found = {(f.path, f.line): f.severity.label for f in lint_files(tmp_path, files) if f.rule == "WCT010"}
    assert found == {("rods/blocks.py", 4): "warning", ("rods/elements.py", 7): "warning"}


def test_model_coverage_counts_launches_run_only_inside_a_suspension_as_untaped(tmp_path):
    # ``warp-ct model``'s tape figures: the forward blocks' launches are known untaped, though
    # an opaque tape's file imports their module; the adjoint's taped launches stay taped.
    program = _program(tmp_path, _library())
    reach = TapeReach(program)
    placed = {(module, launch.function): reach.placed(module, launch)
              for module in ("rods.blocks", "rods.adjoint") for launch in program.modules[module].launches}  # fmt: skip
    assert placed == {("rods.blocks", "Block.assemble"): False, ("rods.blocks", "Block.energy"): False,
                      ("rods.adjoint", "Adjoint.vjp"): True}  # fmt: skip


LINEAR = (
    "import warp as wp\n\n\n"
    "@wp.kernel\n"
    "def convert(x: wp.array(dtype=float)):\n"
    "    i = wp.tid()\n"
    "    x[i] = x[i] * 0.5\n"
)


def _with_backward_solve(callback: str) -> dict[str, str]:
    """The adjoint's tape also records a callback (``callback``) that solves its linear system
    with rods.linear's kernel, outside any tape of its own."""
    adjoint = ADJOINT.replace("from rods import blocks, residual", "from rods import blocks, linear, residual").replace(
        "            tape.backward(grads={x: x})\n",
        f"                tape.record_func({callback}, [x])\n            tape.backward(grads={{x: x}})\n\n"
        "    def _linear_solve(self, x):\n        wp.launch(linear.convert, dim=x.shape, inputs=[x])\n")  # fmt: skip
    return {**_library(adjoint=adjoint), "rods/linear.py": LINEAR}


def test_a_record_func_callback_runs_in_backward_where_no_tape_records(tmp_path):
    # dismech-newton's ``tape.record_func(lambda: self._solve(...), [q_star])``: Warp runs the
    # callback in ``tape.backward()``, which records nothing: its launches are unrecorded.
    files = _with_backward_solve("lambda: self._linear_solve(x)")
    assert _wct010(lint_files(tmp_path / "lambda", files)) == [
        ("rods/blocks.py", 4), ("rods/elements.py", 7), ("rods/linear.py", 4)]
    program = _program(tmp_path / "lambda", {})
    solve = [call for call in program.modules["rods.adjoint"].functions["Adjoint.vjp"].calls if call.callee == "self._linear_solve"]
    assert len(solve) == 1 and [w.kind for w in solve[0].withs][-1] == "backward" and program.suspended(solve[0])
    # A function handed on by name is a value the model keeps: whoever holds it may call it
    # under a tape (the model does not follow it into Warp's backward pass).
    files = _with_backward_solve("self._linear_solve")
    assert _wct010(lint_files(tmp_path / "named", files)) == [("rods/blocks.py", 4), ("rods/elements.py", 7)]
