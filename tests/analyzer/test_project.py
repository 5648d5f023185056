"""The project view: a frozen file set lets the model drop calls that reach nothing; a batch keeps texts packed."""

from __future__ import annotations

from pathlib import Path

from warp_ct.analyzer import batch
from warp_ct.analyzer.engine import Linter, discover, read_source
from warp_ct.config import load_config

from .helpers import write_files

PROGRAMS = Path(__file__).resolve().parents[1] / "programs"

FILES = {
    "pkg/__init__.py": "",
    "pkg/k.py": (
        "import warp as wp\n@wp.kernel\ndef step(x: wp.array(dtype=float)):\n    x[wp.tid()] += 1.0\n"
        "def run(x):\n    wp.launch(step, dim=1, inputs=[x])\n"
    ),
    "pkg/app.py": (
        "import numpy as np\nimport torch\nimport warp as wp\nfrom pkg.k import run\n"
        "def main(x, tape):\n    n = len(x)\n    torch.zeros(n)\n    run(x)\n    with wp.Tape():\n        helper(x)\n"
    ),
}


def _project(root: Path, *, frozen: bool):
    write_files(root, FILES)
    linter = Linter(load_config(root))
    linter.add_to_project(read_source(p) for p in discover([str(root)], linter.config))
    if frozen:
        linter.project.freeze()
    return linter


def _calls(project, module: str, qualname: str) -> list[str]:
    return [c.callee for c in project.program().modules[module].functions[qualname].calls]


def test_a_frozen_project_keeps_only_the_calls_the_model_can_use(tmp_path):
    assert _calls(_project(tmp_path, frozen=False).project, "pkg.app", "main") == ["torch.zeros", "pkg.k.run", "helper"]
    # ``run`` reaches a project function; ``helper`` is inside a tape (unknown: it may launch).
    assert _calls(_project(tmp_path, frozen=True).project, "pkg.app", "main") == ["pkg.k.run", "helper"]


def test_a_change_after_freezing_extracts_the_trimmed_facts_again(tmp_path):
    linter = _project(tmp_path, frozen=True)
    assert "torch.zeros" not in _calls(linter.project, "pkg.app", "main")
    linter.lint_text(str(tmp_path / "pkg" / "extra.py"), "import warp as wp\n")
    assert "torch.zeros" in _calls(linter.project, "pkg.app", "main")


def test_the_batch_lint_finds_what_the_unfrozen_lint_finds():
    config = load_config(PROGRAMS)

    def keyed(results):
        return sorted((f.path, f.range.start.line, f.range.start.character, f.rule, f.message) for r in results for f in r.findings)

    batched = keyed(batch.run_lint([str(PROGRAMS)], config))
    assert batched  # not vacuous: the fixture projects have findings
    # Each fixture is a project of its own (its pyproject.toml): one unfrozen linter each.
    unfrozen = [r for fixture in sorted(PROGRAMS.iterdir()) if (fixture / "pyproject.toml").is_file()
                for r in Linter(config).lint_paths([str(fixture)])]  # fmt: skip
    assert batched == keyed(unfrozen)


def test_library_calls_are_no_call_graph_edges_except_on_a_tape():
    from warp_ct.analyzer.facts import extract

    text = (
        "import os\nimport warp as wp\n"
        "def f(x):\n    os.path.join('a', x)\n    getattr(x, 'y')\n    helper(x)\n"
        "    with wp.Tape():\n        os.path.join('a', x)\n"
    )
    facts = extract("m.py", text, "m", False)
    assert [(c.callee, c.taped) for c in facts.functions["f"].calls] == [("helper", False), ("os.path.join", True)]


def test_a_packed_text_reads_back_unchanged_and_a_held_one_keeps_its_identity():
    from warp_ct.analyzer.project import summarize

    # Non-ASCII (two bytes a character as str) and a lone surrogate, which an editor's
    # buffer may hold: both must come back as they were.
    text = "import warp as wp\n# ×2 — \ud800\nx = 1\n"
    summary = summarize("m.py", text)
    summary.pack_text()
    assert summary.held_text is None and summary.packed_text is not None
    assert summary.text == text and summary.size == len(text) and summary.mentions_warp
    held = summary.hold_text()
    assert held == text and summary.text is held  # the caches keyed on the text see one object
    summary.pack_text()
    assert summary.held_text is None and summary.text == text


def test_the_batch_lint_keeps_texts_packed_and_finds_the_same(tmp_path, monkeypatch):
    """While the misses of a large project are linted, only the file at hand has its text unpacked."""
    write_files(tmp_path, FILES)
    monkeypatch.setattr(batch, "PACK_TEXTS_ABOVE", 0)
    held_while_linting: list[int] = []
    real = Linter.lint_source_file

    def spy(self, source):
        held_while_linting.append(sum(s.held_text is not None for s in self.project.files.values()))
        return real(self, source)

    monkeypatch.setattr(Linter, "lint_source_file", spy)
    config = load_config(tmp_path)
    batched = batch.run_lint([str(tmp_path)], config)
    assert held_while_linting and set(held_while_linting) == {1}
    monkeypatch.undo()
    assert [r.findings for r in batched] == [r.findings for r in Linter(config).lint_paths([str(tmp_path)])]


LAUNCHES_TWICE = (
    "import warp as wp\n\n@wp.kernel\ndef k(x: wp.array(dtype=float)):\n    x[0] = 1.0\n\n"
    "def run(x):\n    wp.launch(k, dim=1, inputs=[x])\n    wp.launch(k, dim=1, inputs=[x])\n"
)


def test_a_stub_beside_its_source_stays_out_of_the_model(tmp_path):
    # Isaac Lab ships ``pkg/__init__.py`` with ``pkg/__init__.pyi``: the stub once replaced
    # the source in the model, and a rule indexing the source's launches crashed the run.
    write_files(tmp_path, {
        "pkg/__init__.py": LAUNCHES_TWICE,
        "pkg/__init__.pyi": "import warp as wp\n\ndef run(x: wp.array) -> None: ...\n",
    })  # fmt: skip
    linter = Linter(load_config(tmp_path))
    results = batch.run_lint([str(tmp_path)], linter.config)
    assert len(results) == 2 and not any(r.notes for r in results)
    linter.add_to_project([read_source(p) for p in discover([str(tmp_path)], linter.config)])
    program = linter.project.program()
    assert program.modules["pkg"].path.endswith("__init__.py") and len(program.modules) == 1


def test_a_stub_package_alone_is_not_code(tmp_path):
    # antioch-sim ships ``newton-stubs/``, ``warp-stubs/``, ``isaaclab-stubs/`` (.pyi only):
    # stubs never run, yet they were linted as code (405 findings, none of them real).
    stub = LAUNCHES_TWICE.replace("x[0] = 1.0", "...")
    write_files(tmp_path, {
        "pyproject.toml": "[project]\nname = 'app'\n",
        "lib-stubs/__init__.pyi": stub,
        "lib-stubs/kernels.pyi": "import warp as wp\n\n@wp.kernel(module='unique')\ndef k(x: wp.array(dtype=float)) -> None: ...\n",
        "lib-stubs/broken.pyi": "import warp as wp\n\ndef f(:\n",
    })  # fmt: skip
    linter = Linter(load_config(tmp_path))
    results = batch.run_lint([str(tmp_path)], linter.config)
    findings = {(r.path.rsplit("/", 1)[-1], f.rule) for r in results for f in r.findings}
    assert findings == {("broken.pyi", "WCT900")}  # a stub that does not parse still says so
    linter.add_to_project([read_source(p) for p in discover([str(tmp_path)], linter.config)])
    assert linter.project.program().modules == {}


def test_two_sources_of_one_module_name_each_keep_a_module(tmp_path):
    # rewarped's envs/dflex/ant.py and envs/isaacgymenvs/ant.py are both top-level ``ant``.
    write_files(tmp_path, {"dflex/ant.py": LAUNCHES_TWICE, "gym/ant.py": "import warp as wp\n\nX = 1\n"})
    linter = Linter(load_config(tmp_path))
    linter.add_to_project([read_source(p) for p in discover([str(tmp_path)], linter.config)])
    names = sorted(s.module_name for s in linter.project.files.values())
    assert names == ["ant", "gym.ant"]
    assert {m: f.path.rsplit("/", 2)[-2] for m, f in linter.project.program().modules.items()} == {"ant": "dflex", "gym.ant": "gym"}


def test_a_call_resolved_through_its_own_loop_variable_ends(tmp_path):
    # ``for name, module in module.named_children()`` resolves ``module.named_children``
    # through the loop's table, whose rows are that same call (warpconvnet 1.8.2 recursed
    # until Python's limit and the whole lint stopped).
    write_files(tmp_path, {"net.py": (
        "import warp as wp\n\n"
        "@wp.kernel\n"
        "def scale(x: wp.array(dtype=float)):\n"
        "    x[wp.tid()] = 2.0 * x[wp.tid()]\n\n"
        "def first_channel(module):\n"
        "    for name, module in module.named_children():\n"
        "        return first_channel(module)\n\n"
        "def run(x):\n"
        "    first_channel(x)\n"
        "    wp.launch(scale, dim=1, inputs=[x])\n"
    )})  # fmt: skip
    results = batch.run_lint([str(tmp_path)], load_config(tmp_path))
    assert [f.rule for r in results for f in r.findings if f.rule.startswith("WCT9")] == []
    assert [r.path for r in results] == [str(tmp_path / "net.py")]


EDITED = (
    "import warp as wp\n\n@wp.kernel\ndef step(x: wp.array(dtype=float)):\n    v = x[wp.tid()]  # note\n    x[wp.tid()] = v + 1.0\n\n"
    "def run(x):\n    for i in range(10):\n        wp.launch(step, dim=1, inputs=[x])\n        wp.set_module_options({'fast_math': True})\n"
)


def _findings(linter: Linter, path: Path, text: str) -> list[tuple]:
    return [(f.rule, f.range.start.line, f.range.start.character, f.message) for f in linter.lint_text(str(path), text).findings]


def test_an_edit_the_model_does_not_read_keeps_the_program_and_finds_the_same(tmp_path):
    """An editor's keystroke in a comment or a kernel's body leaves the facts as they were:
    the program model and its answers are kept, and the findings are those of a fresh lint."""
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/k.py": EDITED})
    path = tmp_path / "pkg" / "k.py"
    linter = Linter(load_config(tmp_path))
    linter.add_to_project(read_source(p) for p in discover([str(tmp_path)], linter.config))
    before = _findings(linter, path, EDITED)
    assert before, "the fixture has findings to compare"
    program, generation = linter.project.program(), linter.project.generation
    for edited in (EDITED.replace("# note", "# notes"), EDITED.replace("v + 1.0", "v + 2.0")):
        assert _findings(linter, path, edited) == before
        assert linter.project.program() is program and linter.project.generation == generation
        fresh = Linter(load_config(tmp_path))
        fresh.add_to_project(read_source(p) for p in discover([str(tmp_path)], fresh.config))
        assert _findings(fresh, path, edited) == before


def test_an_edit_that_changes_the_facts_rebuilds_the_program(tmp_path):
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/k.py": EDITED})
    path = tmp_path / "pkg" / "k.py"
    linter = Linter(load_config(tmp_path))
    linter.add_to_project(read_source(p) for p in discover([str(tmp_path)], linter.config))
    before = _findings(linter, path, EDITED)
    program = linter.project.program()
    moved = EDITED.replace("        wp.set_module_options({'fast_math': True})\n", "").replace(
        "def run(x):\n", "def run(x):\n    wp.set_module_options({'fast_math': True})\n")
    after = _findings(linter, path, moved)
    assert linter.project.program() is not program
    assert [f[0] for f in after] != [f[0] for f in before]  # the late option change is gone
