"""An editor's edits, analysed incrementally (one ``Linter`` kept across keystrokes, as the
server does), find exactly what a cold lint of the edited text finds: in the edited file and
in every other file of the project, for edits that change the file's facts (Enter, a new
call argument, a new kernel, a deleted launch, a new ``wp.set_module_options``, a syntax
error and its fix) as well as edits the model does not read."""

from __future__ import annotations

from pathlib import Path

import pytest

from warp_ct.analyzer.engine import Linter, discover, read_source
from warp_ct.config import load_config

from .helpers import write_files

PROGRAMS = Path(__file__).resolve().parents[1] / "programs"

# A package whose findings cross files: a launching helper and factories in one module, a
# simulator that launches, changes options and asks a factory after its first launch in
# another, an application driving it in a loop, and a script that differentiates.
PACKAGE = {
    "pyproject.toml": '[project]\nname = "sim-pkg"\nversion = "0"\n',
    "simpkg/__init__.py": '"""A simulation package."""\n',
    "simpkg/kernels.py": '''import functools

import warp as wp


@wp.kernel
def integrate(x: wp.array(dtype=float), v: wp.array(dtype=float), dt: float):
    i = wp.tid()
    x[i] = x[i] + v[i] * dt  # step


@wp.kernel
def damp(v: wp.array(dtype=float), k: float):
    i = wp.tid()
    v[i] = v[i] * k


@wp.kernel
def scale_any(a: wp.array(dtype=wp.types.Any), s: float):
    i = wp.tid()
    a[i] = a[i] * s


def make_gain(g: float):
    @wp.kernel
    def gain(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = a[i] * g

    return gain


@functools.cache
def make_offset(o: float):
    @wp.kernel
    def offset(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = a[i] + o

    return offset


def launch(kernel, n, inputs, block_dim=256):
    wp.launch(kernel, dim=n, inputs=inputs, block_dim=block_dim)
''',
    "simpkg/sim.py": '''import warp as wp

from simpkg import kernels
from simpkg.kernels import damp, integrate, launch, make_gain, make_offset


class Sim:
    def __init__(self, n, block_dim=128):
        self.n = n
        self.block_dim = block_dim
        self.x = wp.zeros(n, dtype=float)
        self.v = wp.zeros(n, dtype=float)

    def step(self, dt):
        wp.launch(integrate, dim=self.n, inputs=[self.x, self.v, dt], block_dim=self.block_dim)
        launch(damp, self.n, [self.v, 0.99], block_dim=64)
        wp.set_module_options({"fast_math": True}, module=kernels)
        wp.launch(make_gain(2.0), dim=self.n, inputs=[self.x])
        wp.launch(make_offset(1.0), dim=self.n, inputs=[self.x])

    def scale(self, a64, a32):
        wp.launch(kernels.scale_any, dim=self.n, inputs=[a32, 2.0])
        wp.launch(kernels.scale_any, dim=self.n, inputs=[a64, 2.0])


def warm_up(sim):
    wp.launch(integrate, dim=sim.n, inputs=[sim.x, sim.v, 0.0], block_dim=32)
''',
    "simpkg/app.py": '''import warp as wp

from simpkg.sim import Sim, warm_up


def main():
    sim = Sim(1024)
    warm_up(sim)
    for _ in range(100):
        sim.step(0.01)
    a32 = wp.zeros(8, dtype=wp.float32)
    a64 = wp.zeros(8, dtype=wp.float64)
    sim.scale(a64, a32)


if __name__ == "__main__":
    main()
''',
    "simpkg/train.py": '''import warp as wp

from simpkg.kernels import integrate

wp.config.enable_backward = False


def loss(x, v):
    tape = wp.Tape()
    with tape:
        wp.launch(integrate, dim=len(x), inputs=[x, v, 0.1])
    tape.backward()
''',
}

# (file, description, old text, new text): applied one after another to the package.
EDITS = [
    ("simpkg/sim.py", "a comment", "        self.n = n\n", "        self.n = n  # particles\n"),
    ("simpkg/sim.py", "Enter in a method", "        self.n = n  # particles\n", "        self.n = n  # particles\n\n        \n"),
    ("simpkg/sim.py", "a new argument in a host call", "launch(damp, self.n, [self.v, 0.99], block_dim=64)",
     "launch(damp, self.n, [self.v, 0.99], block_dim=self.block_dim)"),
    ("simpkg/sim.py", "a syntax error", "    def scale(self, a64, a32):\n", "    def scale(self, a64, a32:\n"),
    ("simpkg/sim.py", "the syntax error fixed", "    def scale(self, a64, a32:\n", "    def scale(self, a64, a32):\n"),
    ("simpkg/sim.py", "a deleted launch", "        wp.launch(make_offset(1.0), dim=self.n, inputs=[self.x])\n", ""),
    ("simpkg/kernels.py", "Enter at the top", "import functools\n", "import functools\n\n\n"),
    ("simpkg/kernels.py", "a new kernel", "def launch(kernel, n, inputs, block_dim=256):\n",
     "@wp.kernel\ndef late(a: wp.array(dtype=float)):\n    a[wp.tid()] = 0.0\n\n\ndef launch(kernel, n, inputs, block_dim=256):\n"),
    ("simpkg/kernels.py", "set_module_options at import", "@wp.kernel\ndef late(",
     "wp.set_module_options({'enable_backward': False})\n\n\n@wp.kernel\ndef late("),
    ("simpkg/app.py", "a new call", "    warm_up(sim)\n", "    warm_up(sim)\n    sim.step(0.0)\n"),
    ("simpkg/sim.py", "Enter deleted", "        self.n = n  # particles\n\n        \n", "        self.n = n\n"),
    ("simpkg/app.py", "Enter in a loop", "    for _ in range(100):\n", "    for _ in range(100):\n\n"),
    ("simpkg/train.py", "backward turned on", "wp.config.enable_backward = False\n", "\n"),
]


def _findings(linter: Linter, path: str, text: str) -> list[tuple]:
    result = linter.lint_text(path, text)
    return [(f.rule, f.range.start.line, f.range.start.character, f.range.end.line, f.message) for f in result.findings]


def _all_findings(linter: Linter, texts: dict[str, str], edited: str) -> dict[str, list[tuple]]:
    """The edited file first (the server's keystroke), then the others as an editor re-lints them."""
    out = {edited: _findings(linter, edited, texts[edited])}
    for path, text in texts.items():
        if path != edited:
            out[path] = _findings(linter, path, text)
    return out


def _cold(root: Path, texts: dict[str, str], edited: str) -> dict[str, list[tuple]]:
    linter = Linter(load_config(root))
    linter.add_to_project(read_source(p) for p in discover([str(root)], linter.config))
    for path, text in texts.items():
        linter.project.add(path, text)
    return _all_findings(linter, texts, edited)


def _texts(root: Path) -> dict[str, str]:
    return {p: Path(p).read_text(encoding="utf-8") for p in discover([str(root)], load_config(root))}


def _check_edits(root: Path, edits: list[tuple[str, str, str, str]]) -> int:
    """Apply ``edits`` in order to one incremental linter; after each, compare every file's
    findings with a cold lint of the same texts. Returns how many findings were compared."""
    texts = _texts(root)
    linter = Linter(load_config(root))
    linter.add_to_project(read_source(p) for p in discover([str(root)], linter.config))
    _all_findings(linter, texts, next(iter(texts)))  # the model and its answers, warm
    compared = 0
    for name, what, old, new in edits:
        path = str(root / name)
        assert texts[path].count(old) == 1, (what, old)
        texts[path] = texts[path].replace(old, new)
        incremental = _all_findings(linter, texts, path)
        cold = _cold(root, texts, path)
        for file in texts:
            assert incremental[file] == cold[file], f"after {what!r} in {name}: {Path(file).name} differs"
        compared += sum(map(len, cold.values()))
    return compared


def test_edits_of_a_package_find_what_a_cold_lint_finds(tmp_path):
    write_files(tmp_path, PACKAGE)
    texts = _texts(tmp_path)
    cold = _cold(tmp_path, texts, next(iter(texts)))
    rules = {f[0] for found in cold.values() for f in found}
    # The package exercises the cross-file rules the edits can change.
    assert {"WCT003", "WCT006", "WCT009"} <= rules, rules
    assert _check_edits(tmp_path, EDITS) > 0


def test_a_statement_typed_key_by_key_finds_what_a_cold_lint_finds(tmp_path):
    """Typing a new line passes through texts that do not parse (``x =``, ``f(a``) and back:
    each text's findings are a cold lint's, the broken ones' a syntax error only."""
    write_files(tmp_path, PACKAGE)
    statement = "        wp.launch(make_gain(3.0), dim=self.n, inputs=[self.x], block_dim=32)"
    anchor = "        launch(damp, self.n, [self.v, 0.99], block_dim=64)\n"
    edits, typed = [], ""
    for end in (*range(8, len(statement), 5), len(statement)):  # the line opened by Enter, then keys
        line = statement[:end] + "\n"
        edits.append(("simpkg/sim.py", f"typed {line!r}", anchor + typed, anchor + line))
        typed = line
    assert _check_edits(tmp_path, edits) > 0


def _program_edits(root: Path) -> list[tuple[str, str, str, str]]:
    """Mechanical edits of each file of a fixture program: Enter after the first line of the
    body of up to three functions (each kept), then those lines deleted again."""
    edits = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines(keepends=True)
        name = str(path.relative_to(root))
        entered = []
        for i, line in enumerate(lines[:-1]):
            if line.lstrip().startswith("def ") and line.rstrip().endswith(":"):
                body = lines[i + 1]
                if body.strip() and text.count(body) == 1 and len(entered) < 3:
                    indent = body[: len(body) - len(body.lstrip())]
                    entered.append((name, f"Enter after line {i + 2}", body, body + indent + "\n"))
        edits += entered
        edits += [(name, f"{what}, undone", new, old) for name, what, old, new in entered]
    return edits


@pytest.mark.parametrize("program", ["app_particle_sim", "lazy_factory_after_launch", "helper_options_after_launch",
                                     "launch_helper_elsewhere", "generic_late_types", "block_dims_param"])
def test_enter_in_fixture_programs_finds_what_a_cold_lint_finds(tmp_path, program):
    import shutil

    shutil.copytree(PROGRAMS / program, tmp_path / program)
    root = tmp_path / program
    edits = _program_edits(root)
    assert edits
    _check_edits(root, edits)
