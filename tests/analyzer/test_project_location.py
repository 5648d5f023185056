"""Where a project lives does not make its files tests or examples: a folder named `tests`,
`examples` or `benchmarks` above the project's root is not the project's own. The files'
folders are read from the project's root, whether the paths come absolute (an editor's, a
CI job's) or relative (`warp-ct lint .`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from warp_ct.analyzer import batch
from warp_ct.analyzer.engine import Linter
from warp_ct.analyzer.program import path_in_project
from warp_ct.config import load_config

from .helpers import write_files

APP = {
    "pyproject.toml": '[project]\nname = "app"\n',
    "sim/__init__.py": "",
    "sim/physics.py": (
        "import warp as wp\n\n@wp.kernel\ndef integrate(x: wp.array(dtype=float)):\n"
        "    x[wp.tid()] = x[wp.tid()] * 2.0\n"
    ),
    "sim/step.py": (
        "import warp as wp\nfrom sim.physics import integrate\n\n"
        "def make(scale):\n"
        "    @wp.kernel\n"
        "    def scaled(x: wp.array(dtype=float)):\n"
        "        x[wp.tid()] = x[wp.tid()] * scale\n"
        "    return scaled\n\n"
        "def step(x, scale):\n"
        "    wp.launch(integrate, dim=x.shape, inputs=[x])\n"
        "    wp.launch(make(scale), dim=x.shape, inputs=[x])\n"
    ),
    "run.py": (
        "import warp as wp\nfrom sim.step import step\n\n"
        "def main():\n    x = wp.zeros(4)\n    for i in range(100):\n        step(x, float(i))\n\n"
        "if __name__ == '__main__':\n    main()\n"
    ),
}


# WCT009 is information in test code (tests exercise block_dims on purpose), a warning elsewhere.
APP["sim/tiles.py"] = (Path(__file__).resolve().parents[2] / "examples" / "lint" / "block_dim_spread.py").read_text()


def _findings(results, root: Path) -> set[tuple[str, int, str, str]]:
    return {(os.path.relpath(r.path, root), f.range.start.line + 1, f.rule, f.severity.name.lower())
            for r in results for f in r.findings}  # fmt: skip


@pytest.mark.parametrize("above", ["tests", "examples", "benchmarks"])
def test_a_project_under_a_tests_or_examples_folder_is_linted_as_anywhere_else(tmp_path, above):
    plain, nested = tmp_path / "work" / "app", tmp_path / above / "app"
    for root in (plain, nested):
        write_files(root, APP)
    config = load_config(plain)
    expected = _findings(batch.run_lint([str(plain)], config), plain)
    assert {(code, severity) for _path, _line, code, severity in expected} >= {
        ("WCT003", "warning"), ("WCT009", "warning"), ("WCT010", "warning")}  # not vacuous
    assert _findings(batch.run_lint([str(nested)], config), nested) == expected
    # The editor's linter: one per folder, absolute paths.
    assert _findings(Linter(config).lint_paths([str(nested)]), nested) == expected


def test_a_path_inside_the_project_is_read_from_its_root(tmp_path):
    root = os.path.realpath(tmp_path / "tests" / "app")
    assert path_in_project(os.path.join(root, "tests", "test_x.py"), root) == os.path.join("tests", "test_x.py")
    assert path_in_project(os.path.join(root, "sim", "a.py"), root) == os.path.join("sim", "a.py")
    assert path_in_project("/elsewhere/tests/a.py", root) == "/elsewhere/tests/a.py"  # outside: as given
    assert path_in_project("tests/a.py", None) == "tests/a.py"
