"""WCT010 and the model's tape blocks: a ``with`` that suspends the tape is not a tape.

The facts keep what each ``with`` around a launch or call is; the model decides: ``wp.Tape()``,
a name holding one and a project subclass of it record, a project context manager that sets
Warp's runtime tape to None (``suspended_tape()``) records nothing inside it (a tape opened
inside it still does), and a context the model cannot resolve keeps the file's reading (its
text names a tape: a tape)."""

from __future__ import annotations

from pathlib import Path

from warp_ct.analyzer import batch
from warp_ct.analyzer.coverage import TapeReach
from warp_ct.analyzer.engine import Linter, discover, read_source
from warp_ct.config import load_config

from .helpers import lint_files, write_files

K = "@wp.kernel\ndef {name}(x: wp.array(dtype=float)):\n    i = wp.tid()\n    x[i] = x[i] * 2.0\n"


def kernels(*names: str) -> str:
    return "import warp as wp\n\n" + "\n".join(K.format(name=n) for n in names)


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


def _wct010(findings) -> list[tuple[str, int]]:
    return sorted((f.path, f.line) for f in findings if f.rule == "WCT010")


def _solver(step_body: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """sim.forward's kernels launched in ``Solver.step`` (``step_body``), sim.residual's under a
    tape of its own with ``backward``: the residual module is differentiated either way."""
    files = {
        "sim/__init__.py": "",
        "sim/state.py": SUSPEND,
        "sim/forward.py": kernels("predict", "correct"),
        "sim/residual.py": kernels("residual"),
        "sim/solver.py": (
            "import warp as wp\nfrom sim.state import suspended_tape\nfrom sim import forward, residual\n\n\n"
            "class Solver:\n"
            "    def step(self, x):\n" + step_body + "\n"
            "    def _step(self, x):\n"
            "        wp.launch(forward.predict, dim=x.shape, inputs=[x])\n"
            "        wp.launch(forward.correct, dim=x.shape, inputs=[x])\n\n"
            "    def sensitivity(self, x):\n"
            "        tape = wp.Tape()\n"
            "        with tape:\n"
            "            wp.launch(residual.residual, dim=x.shape, inputs=[x])\n"
            "        tape.backward(grads={x: x})\n"
        ),
        "run.py": (
            "import warp as wp\nfrom sim.solver import Solver\n\n"
            "if __name__ == '__main__':\n"
            "    s, x = Solver(), wp.zeros(4, requires_grad=True)\n"
            "    s.step(x)\n    s.sensitivity(x)\n"
        ),
    }
    files.update(extra or {})
    return files


def test_a_suspending_context_manager_is_no_tape(tmp_path):
    # dismech-newton's ``with suspended_tape() as tape: self._step(...)``: nothing inside is
    # recorded, so forward's backward code is never used.
    body = "        with suspended_tape() as tape:\n            self._step(x)\n"
    assert _wct010(lint_files(tmp_path, _solver(body))) == [("sim/forward.py", 3)]


def test_launches_directly_inside_a_suspension_are_not_taped(tmp_path):
    body = (
        "        with suspended_tape():\n"
        "            wp.launch(forward.predict, dim=x.shape, inputs=[x])\n"
        "            wp.launch(forward.correct, dim=x.shape, inputs=[x])\n"
    )
    assert _wct010(lint_files(tmp_path, _solver(body))) == [("sim/forward.py", 3)]


def test_a_class_whose_enter_suspends_the_tape_is_no_tape(tmp_path):
    pause = (
        "import warp as wp\n\n\nclass Paused:\n"
        "    def __enter__(self):\n"
        "        self.saved = wp.context.runtime.tape\n"
        "        wp.context.runtime.tape = None\n"
        "        return self\n\n"
        "    def __exit__(self, *exc):\n"
        "        wp.context.runtime.tape = self.saved\n"
    )
    body = "        with PausedTape():\n            self._step(x)\n"
    files = _solver(body, {"sim/pause.py": pause})
    files["sim/solver.py"] = files["sim/solver.py"].replace(
        "from sim.state import suspended_tape\n", "from sim.pause import Paused as PausedTape\n"
    )
    assert _wct010(lint_files(tmp_path, files)) == [("sim/forward.py", 3)]


def test_a_real_tape_nested_in_a_suspension_still_records(tmp_path):
    # dismech-newton's adjoint: ``with suspended_tape(): tape = wp.Tape(); with tape: ...``.
    body = (
        "        with suspended_tape():\n"
        "            tape = wp.Tape()\n"
        "            with tape:\n"
        "                self._step(x)\n"
        "            tape.backward(grads={x: x})\n"
    )
    assert _wct010(lint_files(tmp_path, _solver(body))) == []


def test_a_context_the_model_cannot_resolve_keeps_the_files_reading(tmp_path):
    # ``with something_tape():`` from outside the project: still read as a tape (silent), as
    # is a project context manager that names a tape and does not suspend one.
    body = "        with recording_tape():\n            self._step(x)\n"
    files = _solver(body)
    files["sim/solver.py"] = "from somewhere_else import recording_tape\n" + files["sim/solver.py"]
    assert _wct010(lint_files(tmp_path / "outside", files)) == []
    own = {"sim/state.py": SUSPEND + "\n\n@contextmanager\ndef recording_tape():\n    with wp.Tape() as tape:\n        yield tape\n"}
    files = _solver(body, own)
    files["sim/solver.py"] = files["sim/solver.py"].replace("import suspended_tape", "import recording_tape")
    assert _wct010(lint_files(tmp_path / "own", files)) == []


def test_a_finally_that_ends_a_tape_is_no_suspension(tmp_path):
    # A context manager opening a tape of its own and clearing the runtime's in ``finally:``.
    own = {"sim/state.py": (
        "import warp as wp\nfrom contextlib import contextmanager\n\n\n@contextmanager\ndef recording_tape():\n"
        "    tape = wp.Tape()\n    wp.context.runtime.tape = tape\n    try:\n        yield tape\n"
        "    finally:\n        wp.context.runtime.tape = None\n"
    )}  # fmt: skip
    files = _solver("        with recording_tape():\n            self._step(x)\n", own)
    files["sim/solver.py"] = files["sim/solver.py"].replace("import suspended_tape", "import recording_tape")
    assert _wct010(lint_files(tmp_path, files)) == []


def _program(root: Path, files: dict[str, str]):
    write_files(root, files)
    linter = Linter(load_config(root))
    linter.add_to_project([read_source(p) for p in discover([str(root)], linter.config)])
    return linter.project.program()


def _launches(program, module: str):
    return {launch.span[0]: launch for launch in program.modules[module].launches}


def test_the_model_reads_each_with_block(tmp_path):
    main = (
        "import warp as wp\nfrom contextlib import contextmanager\nfrom sim import forward\n"
        "from sim.state import suspended_tape\n\n\n"
        "class Recorder(wp.Tape):\n    pass\n\n\n"
        "def run(x):\n"
        "    recorder = wp.Tape()\n"
        "    with recorder:\n"  # 13: a wp.Tape held in a name (no "tape" in it)
        "        wp.launch(forward.predict, dim=x.shape, inputs=[x])\n"
        "    with Recorder():\n"  # 15: a project subclass of wp.Tape
        "        wp.launch(forward.predict, dim=x.shape, inputs=[x])\n"
        "    with suspended_tape() as tape:\n"
        "        wp.launch(forward.predict, dim=x.shape, inputs=[x])\n"  # 18: suspended
        "        with tape:\n"  # the tape it yields: the file names it a tape, the model keeps that
        "            wp.launch(forward.predict, dim=x.shape, inputs=[x])\n"  # 20
        "    with wp.Tape():\n"
        "        with suspended_tape():\n"
        "            wp.launch(forward.correct, dim=x.shape, inputs=[x])\n"  # 23: suspended
        "            inner = wp.Tape()\n"
        "            with inner:\n"
        "                wp.launch(forward.correct, dim=x.shape, inputs=[x])\n"  # 26: a tape again
        "    with wp.ScopedDevice('cpu'):\n"
        "        wp.launch(forward.correct, dim=x.shape, inputs=[x])\n"  # 28: no tape
        "\n\nif __name__ == '__main__':\n    run(wp.zeros(4))\n"
    )
    files = {"sim/__init__.py": "", "sim/state.py": SUSPEND, "sim/forward.py": kernels("predict", "correct"), "main.py": main}
    program = _program(tmp_path, files)
    launches = _launches(program, "main")
    taped = {line: program.taped(launch) for line, launch in launches.items()}
    assert taped == {14: True, 16: True, 18: False, 20: True, 23: False, 26: True, 28: False}
    # The file's own reading is unchanged: the text names a tape at 18 and 23.
    assert {line: launch.taped for line, launch in launches.items()} == {
        14: False, 16: False, 18: True, 20: True, 23: True, 26: True, 28: False}  # fmt: skip
    # ``warp-ct model``'s figures read the same answer.
    reach = TapeReach(program)
    assert {line: reach.placed("main", launch) for line, launch in launches.items() if line in (18, 23)} == {
        18: False, 23: False}  # fmt: skip
    assert all(reach.placed("main", launches[line]) for line in (14, 16, 20, 26))


def test_suspends_tape_is_read_from_the_body_only():
    from warp_ct.analyzer.facts import extract

    text = SUSPEND + (
        "\n\ndef not_runtime(obj):\n    obj.tape = None\n"
        "\n\ndef restores():\n    runtime = wp.context.runtime\n    try:\n        pass\n    finally:\n        runtime.tape = None\n"
        "\n\ndef sets_first():\n    wp.context.runtime.tape = wp.Tape()\n    wp.context.runtime.tape = None\n"
        "\n\ndef global_runtime():\n    wp._src.context.runtime.tape = None\n"
    )  # fmt: skip
    facts = extract("state.py", text, "state", False)
    assert {name: f.suspends_tape for name, f in facts.functions.items()} == {
        "suspended_tape": True, "not_runtime": False, "restores": False, "sets_first": False, "global_runtime": True}  # fmt: skip


def test_batch_and_linter_agree_on_a_suspension(tmp_path):
    # The batch trims calls that reach nothing; a suspended block's calls stay as the model reads them.
    body = "        with suspended_tape() as tape:\n            self._step(x)\n            self.policy.act(x)\n"
    files = _solver(body)
    write_files(tmp_path, files)
    config = load_config(tmp_path)
    results = batch.run_lint([str(tmp_path)], config)
    found = sorted((r.path.removeprefix(str(tmp_path) + "/"), f.line) for r in results for f in r.findings if f.rule == "WCT010")
    assert found == _wct010(lint_files(tmp_path, files))


def test_a_tape_around_a_call_records_nothing_its_callee_runs_suspended(tmp_path):
    # A user's ``with tape: solver.step(x)`` (dismech-newton's documented use): the step
    # suspends that tape around its forward work, so the tape records none of it.
    body = "        with suspended_tape() as tape:\n            self._step(x)\n"
    files = _solver(body)
    files["run.py"] = (
        "import warp as wp\nfrom sim.solver import Solver\n\n"
        "if __name__ == '__main__':\n"
        "    s, x = Solver(), wp.zeros(4, requires_grad=True)\n"
        "    tape = wp.Tape()\n    with tape:\n        s.step(x)\n    tape.backward(grads={x: x})\n"
        "    s.sensitivity(x)\n"
    )
    assert _wct010(lint_files(tmp_path / "suspended", files)) == [("sim/forward.py", 3)]
    program = _program(tmp_path / "suspended", {})
    step = [launch for launch in program.modules["sim.solver"].launches if launch.function == "Solver._step"]
    reach = TapeReach(program)
    assert step and not any(reach.placed("sim.solver", launch) for launch in step)
    # Without the suspension the user's tape records the step: silent.
    files = _solver("        self._step(x)\n")
    files["run.py"] = _solver(body)["run.py"].replace("    s.step(x)\n", "    with wp.Tape():\n        s.step(x)\n")
    assert _wct010(lint_files(tmp_path / "recorded", files)) == []


def test_an_edit_of_the_context_manager_changes_what_its_users_record(tmp_path):
    # An editor's session: solver.py's reading of its ``with`` block comes from state.py; an
    # edit there (the suspension gone) must reach the verdict on forward.py without an edit of
    # solver.py (WCT010 keeps each file's backward facts between edits).
    body = "        with suspended_tape() as tape:\n            self._step(x)\n"
    write_files(tmp_path, _solver(body))
    linter = Linter(load_config(tmp_path))
    linter.add_to_project(read_source(p) for p in discover([str(tmp_path)], linter.config))
    forward, state = tmp_path / "sim" / "forward.py", tmp_path / "sim" / "state.py"

    def wct010() -> list[int]:
        return [f.line for f in linter.lint_text(str(forward), forward.read_text()).findings if f.rule == "WCT010"]

    assert wct010() == [3]
    recording = SUSPEND.replace("tape, runtime.tape = runtime.tape, None", "tape = runtime.tape")
    linter.lint_text(str(state), recording)
    assert wct010() == []
    linter.lint_text(str(state), SUSPEND)
    assert wct010() == [3]


def test_a_helper_launching_its_kernel_argument_inside_a_suspension_is_not_taped(tmp_path):
    body = "        with suspended_tape():\n            _launch(forward.predict, x)\n            _launch(forward.correct, x)\n"
    files = _solver(body)
    files["sim/solver.py"] = files["sim/solver.py"].replace(
        "class Solver:", "def _launch(kernel, x):\n    wp.launch(kernel, dim=x.shape, inputs=[x])\n\n\nclass Solver:")
    assert _wct010(lint_files(tmp_path, files)) == [("sim/forward.py", 3)]
