"""The injected bootstrap: chains sitecustomize, keeps PYTHONPATH, bounds launch memory."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.probe.conftest import EXAMPLES
from warp_ct.probe.isolation import Workspace, child_environment, run_child
from warp_ct.probe.measure import run_measure
from warp_ct.probe.records import read_records_dir


def test_existing_sitecustomize_and_pythonpath_are_preserved(tmp_path, no_leaked_temp_dirs):
    user_site = tmp_path / "user_site"
    user_site.mkdir()
    marker = tmp_path / "ran.txt"
    (user_site / "sitecustomize.py").write_text(f"open({str(marker)!r}, 'w').write('yes')\nVALUE = 42\n")
    (user_site / "helper_mod.py").write_text("X = 1\n")
    check = (
        "import sys, sitecustomize, helper_mod\n"
        "assert getattr(sitecustomize, 'VALUE', None) == 42, 'user sitecustomize not chained'\n"
        "assert helper_mod.X == 1\n"
    )
    env = dict(os.environ, PYTHONPATH=str(user_site))
    report = run_measure([sys.executable, "-c", check], samples=1, env=env)
    assert report.samples[0].ok
    assert marker.read_text() == "yes"


def test_launch_records_are_bounded(tmp_path):
    bootstrap = Path(__file__).resolve().parents[2] / "warp_ct/probe/inject/sitecustomize.py"
    text = bootstrap.read_text().replace("_MAX_SIGNATURES = 4096", "_MAX_SIGNATURES = 20")
    with Workspace() as workspace:
        (workspace.bootstrap_dir / "sitecustomize.py").write_text(text)
        dirs = workspace.new_sample(0)
        records_dir = dirs.records_for("cold")
        env = child_environment(os.environ, dirs, bootstrap_dir=workspace.bootstrap_dir, records_dir=records_dir)
        # 300 iterations x 2 kernels, dims 1..64: 128 distinct signatures, 600 launches
        child = run_child([sys.executable, str(EXAMPLES / "clean.py"), "300"], cwd=None, env=env,
                          output_dir=dirs.root, timeout=120, cancel=None)
        assert child.exit_code == 0, child.stderr_tail
        records = read_records_dir(records_dir, child.start_epoch)
    assert records.total_launches == 600
    assert len(records.launches) == 20
    assert records.unrecorded_launches == 600 - sum(s.count for s in records.launches)
    assert [s.kernel for s in records.launches[:2]] == ["axpy", "scale"]


pytestmark = pytest.mark.warp
