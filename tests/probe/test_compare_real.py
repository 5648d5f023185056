"""probe compare on real measurements of examples/probe/staged_options.py."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.probe.conftest import EXAMPLES, ROOT, measure_example
from warp_ct.probe.compare import compare_reports
from warp_ct.probe.measure import run_measure

pytestmark = pytest.mark.warp


def test_same_program_twice_is_valid_and_within_noise():
    first = measure_example("staged_options.py", "fixed")
    second = run_measure([sys.executable, str(EXAMPLES / "staged_options.py"), "fixed"], samples=1)
    # the very same report: exactly inconclusive
    assert compare_reports(first, first).verdict == "inconclusive"
    result = compare_reports(first, second)
    assert result.verdict != "invalid" and not result.topology_differences
    assert result.changed_modules == []  # same hashes: deterministic identities


def test_fixed_program_is_an_improvement_with_the_same_topology():
    late = measure_example("staged_options.py", "late")
    fixed = measure_example("staged_options.py", "fixed")
    result = compare_reports(late, fixed)
    assert result.topology_differences == []
    assert result.verdict == "improved", result.to_dict()
    assert result.exit_code == 0
    assert any("`__main__`" in line and "3 -> 1 hash" in line for line in result.changed_modules)


def test_dropped_launch_is_invalid(tmp_path):
    late = measure_example("staged_options.py", "late")
    dropped = measure_example("staged_options.py", "drop")
    base, cand = tmp_path / "base.json", tmp_path / "cand.json"
    base.write_text(json.dumps(late.to_json_dict()))
    cand.write_text(json.dumps(dropped.to_json_dict()))
    cli = subprocess.run(
        [sys.executable, "-m", "warp_ct.probe", "probe", "compare", str(base), str(cand)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 4, cli.stdout + cli.stderr
    assert "verdict: invalid" in cli.stdout and "launch topology changed" in cli.stdout
