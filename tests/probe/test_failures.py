"""Failure modes: a clear message, a distinct exit code, no temp dirs left behind."""

from __future__ import annotations

import json
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


def test_a_failed_command_still_gets_its_json(tmp_path):
    """newton's `basic_pendulum --test` failed its own check after every module had built: the
    JSON the user asked for kept what the runs loaded (exit 3, samples marked not ok)."""
    script = tmp_path / "fails_after_loading.py"
    script.write_text(
        "import warp as wp\n\n@wp.kernel\ndef one(a: wp.array(dtype=float)):\n    a[wp.tid()] = 1.0\n\n"
        "wp.launch(one, dim=2, inputs=[wp.zeros(2, dtype=float, device='cpu')], device='cpu')\n"
        "raise SystemExit('final check failed')\n"
    )
    out = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-m", "warp_ct", "probe", "measure", "--samples", "1", "--quiet", "--json", str(out), "--",
         sys.executable, str(script)],
        cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 3 and "failed in every sample" in done.stderr, done.stderr
    report = json.loads(out.read_text())
    (sample,) = report["samples"]
    assert sample["ok"] is False and sample["cold"]["exit_code"] == 1
    assert [load["module"] for load in sample["cold"]["loads"]] == ["__main__"]
    # and a report without a successful run joins with nothing
    confirm = subprocess.run([sys.executable, "-m", "warp_ct", "confirm", "--json", str(out), str(script)], cwd=tmp_path,
                             capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})  # fmt: skip
    assert confirm.returncode == 2 and "no successful sample" in confirm.stderr, confirm.stderr


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


def _escaping_script(pid_file: Path, *, clear_environment: bool = False, parent_exits: bool = False) -> str:
    """A command whose forked child calls setsid() (leaving the probe's process group) and
    sleeps; it appends its pid to ``pid_file``. ``clear_environment``: the child then
    re-executes itself without any environment variable (so no marker is inherited)."""
    sleeper = f"import os, time; open({str(pid_file)!r}, 'a').write(str(os.getpid()) + chr(10)); time.sleep(60)"
    if clear_environment:
        body = f"os.execve(sys.executable, [sys.executable, '-c', {sleeper!r}], {{}})"
    else:
        body = f"exec({sleeper!r}); os._exit(0)"
    written = f"(open({str(pid_file)!r}).read().count(chr(10)) if os.path.exists({str(pid_file)!r}) else 0)"
    return (
        "import os, sys, time\n"
        f"before = {written}\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        f"    {body}\n"
        f"while {written} == before:\n"  # the child is on its own now
        "    time.sleep(0.05)\n"
        + ("sys.exit(0)\n" if parent_exits else "time.sleep(60)\n")
    )


def _pids(pid_file: Path, count: int = 1) -> list[int]:
    deadline = time.monotonic() + 20
    while True:
        lines = pid_file.read_text().split() if pid_file.exists() else []
        if len(lines) >= count:
            return [int(line) for line in lines]
        assert time.monotonic() < deadline, "the command's child never started"
        time.sleep(0.1)


def _probe_cli(*args: str, **popen) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "warp_ct", "probe", *args], cwd=ROOT, stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, text=True, **popen)  # fmt: skip


@pytest.mark.parametrize("clear_environment", [False, True], ids=["setsid", "setsid-and-empty-environment"])
def test_timeout_stops_a_child_that_left_the_process_group(tmp_path, no_leaked_temp_dirs, clear_environment):
    pid_file = tmp_path / "escaped.pid"
    script = _escaping_script(pid_file, clear_environment=clear_environment)
    cli = _probe_cli("measure", "--samples", "1", "--timeout", "3", "--", sys.executable, "-c", script)
    _out, err = cli.communicate(timeout=30)
    assert cli.returncode == 4, err
    assert "timeout" in err and "Traceback" not in err
    (escaped,) = _pids(pid_file)
    _assert_dead(escaped)
    assert probe_temp_dirs() == set()  # the fixture's private TMPDIR, which the CLI inherited


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM, signal.SIGINT], ids=lambda s: s.name)
def test_a_stop_signal_on_the_cli_exits_130_and_cleans_up(tmp_path, no_leaked_temp_dirs, sig):
    pid_file = tmp_path / "escaped.pid"
    cli = _probe_cli(
        "measure", "--samples", "1", "--", sys.executable, "-c", _escaping_script(pid_file),
        # As from a terminal: a test run started in the background (``cmd &``) inherits
        # SIGINT ignored, and the CLI rightly keeps ignoring it then.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    (escaped,) = _pids(pid_file)
    assert probe_temp_dirs()  # measuring: its workspace exists
    cli.send_signal(sig)
    _out, err = cli.communicate(timeout=30)
    assert cli.returncode == 130, err
    assert "Traceback" not in err and f"interrupted ({sig.name})" in err
    _assert_dead(escaped)
    assert probe_temp_dirs() == set()


def test_what_a_command_leaves_running_is_stopped_when_it_exits(tmp_path):
    pid_file = tmp_path / "escaped.pid"
    report = run_measure([sys.executable, "-c", _escaping_script(pid_file, parent_exits=True)], samples=1)
    assert report.samples[0].ok
    cold, warm = _pids(pid_file, 2)  # one per run, each stopped when its run ended
    _assert_dead(cold)
    _assert_dead(warm)


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


def test_compare_says_what_kind_of_file_it_was_given(tmp_path):
    source = tmp_path / "app.py"
    source.write_text("x = 1\n")
    files = {"ledger.json": json.dumps({"schema_version": 1, "kind": "warp-ct-levers", "levers": []}),
             "notes.txt": "cold run took 3 s\n", "page.html": "<!doctype html><html></html>\n", "empty.json": ""}  # fmt: skip
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    for fmt, name in (("json", "lint.json"), ("sarif", "lint.sarif")):
        lint = subprocess.run([sys.executable, "-m", "warp_ct", "lint", "--output-format", fmt, str(source)],
                              cwd=ROOT, capture_output=True, text=True)  # fmt: skip
        (tmp_path / name).write_text(lint.stdout)
    expected = {
        "ledger.json": "is a `probe levers` ledger",
        "lint.json": "is a `warp-ct lint` JSON report",
        "lint.sarif": "is a SARIF file",
        "notes.txt": "is not JSON (line 1 column 1: Expecting value), so it is not a report",
        "page.html": "is an HTML or XML file, not a report",
        "empty.json": "is an empty file, not a report",
    }
    for name, words in expected.items():
        cli = subprocess.run([sys.executable, "-m", "warp_ct", "probe", "compare", str(tmp_path / name), str(tmp_path / name)],
                             cwd=ROOT, capture_output=True, text=True)  # fmt: skip
        assert cli.returncode == 2, (name, cli.stderr)
        (line,) = cli.stderr.splitlines()
        assert line.startswith(f"warp-ct: error: {tmp_path / name} {words}"), line
        assert line.endswith("not a report written by `warp-ct probe measure --json`"), line


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
