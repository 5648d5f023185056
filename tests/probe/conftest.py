"""Shared helpers: real Warp programs measured once per session, temp-dir leak checks."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

from warp_ct.probe.isolation import TEMP_PREFIX
from warp_ct.probe.measure import run_measure
from warp_ct.probe.report import ProbeReport

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "probe"

_reports: dict[tuple[str, ...], ProbeReport] = {}


def probe_temp_dirs() -> set[str]:
    return {name for name in os.listdir(tempfile.gettempdir()) if name.startswith(TEMP_PREFIX)}


def measure_example(script: str, *args: str, samples: int = 1, env: dict[str, str] | None = None) -> ProbeReport:
    """Measure ``examples/probe/<script> args`` once per session (reports are reused)."""
    key = (script, *args, str(samples))
    if env is not None or key not in _reports:
        report = run_measure([sys.executable, str(EXAMPLES / script), *args], cwd=str(ROOT), samples=samples, env=env)
        if env is not None:
            return report
        _reports[key] = report
    return _reports[key]


@pytest.fixture
def no_leaked_temp_dirs(tmp_path, monkeypatch):
    """Fail if the test leaves a warp-ct-probe-* directory in the system temp dir.

    The test gets a system temp dir of its own (``tempfile.tempdir`` and ``TMPDIR``, which
    the CLIs it starts inherit): other processes probing at the same time (a second test
    run, an editor) would otherwise look like leaks of this test.
    """
    temp = tmp_path / "system-tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setenv("TMPDIR", str(temp))
    before = probe_temp_dirs()
    yield temp
    leaked = probe_temp_dirs() - before
    assert not leaked, f"probe temp dirs left behind: {sorted(leaked)}"
