"""Failure modes: a clear message, a distinct exit code, no temp dirs left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from warp_ct.probe.errors import (
    AllSamplesFailed,
    CommandNotFound,
    ProbeCancelled,
    ProbeTimeout,
    WarpMissing,
)
from warp_ct.probe.measure import run_measure
from tests.probe.conftest import ROOT, probe_temp_dirs

pytestmark = pytest.mark.usefixtures("no_leaked_temp_dirs")


def test_command_not_found():
    with pytest.raises(CommandNotFound) as caught:
        run_measure(["warp-ct-no-such-command"], samples=1)
    assert caught.value.exit_code == 127 and "command not found" in str(caught.value)


def test_every_sample_failing():
    with pytest.raises(AllSamplesFailed) as caught:
        run_measure([sys.executable, "-c", "import sys; print('boom', file=sys.stderr); sys.exit(7)"], samples=2)
    assert caught.value.exit_code == 3
    assert "exit code 7" in str(caught.value) and "boom" in str(caught.value)


def test_timeout_stops_the_whole_process_group(tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    script = (
        "import subprocess, sys, time\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(p.pid))\n"
        "time.sleep(60)\n"
    )
    started = time.monotonic()
    with pytest.raises(ProbeTimeout) as caught:
        run_measure([sys.executable, "-c", script], samples=1, timeout=2)
    assert caught.value.exit_code == 4 and time.monotonic() - started < 15
    _assert_dead(int(pid_file.read_text()))


def test_warp_missing_in_the_target_environment():
    hide_warp = "import sys; sys.path[:] = [p for p in sys.path if 'packages' not in p]; import warp"
    with pytest.raises(WarpMissing) as caught:
        run_measure([sys.executable, "-c", hide_warp], samples=1)
    assert caught.value.exit_code == 5 and "warp" in str(caught.value).lower()


def test_cancel_event_stops_the_child():
    cancel = threading.Event()
    threading.Timer(1.0, cancel.set).start()
    with pytest.raises(ProbeCancelled) as caught:
        run_measure([sys.executable, "-c", "import time; time.sleep(60)"], samples=1, cancel=cancel)
    assert caught.value.exit_code == 130


def test_ctrl_c_on_the_cli_exits_130_and_cleans_up(tmp_path):
    pid_file = tmp_path / "child.pid"
    script = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    before = probe_temp_dirs()
    cli = subprocess.Popen(
        [sys.executable, "-m", "warp_ct.probe", "probe", "measure", "--samples", "1", "--", sys.executable, "-c", script],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
        # As from a terminal: a test run started in the background (``cmd &``) inherits
        # SIGINT ignored, and Python then keeps ignoring Ctrl-C in the CLI too.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 20
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline, "child never started"
        time.sleep(0.1)
    cli.send_signal(signal.SIGINT)
    _out, err = cli.communicate(timeout=20)
    assert cli.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    _assert_dead(int(pid_file.read_text()))
    assert probe_temp_dirs() - before == set()


def test_sigterm_on_the_cli_exits_130(tmp_path):
    pid_file = tmp_path / "child.pid"
    script = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    cli = subprocess.Popen(
        [sys.executable, "-m", "warp_ct.probe", "probe", "measure", "--samples", "1", "--", sys.executable, "-c", script],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 20
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline
        time.sleep(0.1)
    cli.terminate()
    _out, err = cli.communicate(timeout=20)
    assert cli.returncode == 130 and "Traceback" not in err
    _assert_dead(int(pid_file.read_text()))


def test_cli_errors_are_one_sentence_with_the_exit_code():
    result = subprocess.run(
        [sys.executable, "-m", "warp_ct.probe", "probe", "measure", "--samples", "1", "--", "warp-ct-no-such-command"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 127
    assert "Traceback" not in result.stderr and "command not found" in result.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "warp_ct.probe", "probe", "compare", "/nonexistent/a.json", "/nonexistent/b.json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 2 and "cannot read report" in missing.stderr and "Traceback" not in missing.stderr


def _assert_dead(pid: int) -> None:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        # a zombie still answers kill(0); it is dead for our purpose if its state is Z
        try:
            if Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
                return
        except OSError:
            return
        time.sleep(0.1)
    raise AssertionError(f"process {pid} survived")
