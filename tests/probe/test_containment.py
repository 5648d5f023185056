"""What the probe starts never outlives it, its temp dirs do not pile up, output is bounded,
and bad arguments are refused before anything runs.

Real processes throughout: a program that double-forks, calls setsid() and runs ``env -i
sleep``, a probe killed with SIGKILL. Deadlines are generous and no duration is asserted.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from warp_ct.probe.errors import ProbeError, ProbeTimeout
from warp_ct.probe.isolation import (
    OUTPUT_TAIL_BYTES,
    TEMP_PREFIX,
    Workspace,
    child_environment,
    remove_stale_workspaces,
    run_child,
)
from warp_ct.probe.measure import run_measure
from tests.probe.conftest import ROOT, probe_temp_dirs

pytestmark = [
    pytest.mark.usefixtures("no_leaked_temp_dirs"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="subreaper and PDEATHSIG are Linux's"),
]

_DEADLINE_S = 30.0


def _daemonizing_program(pid_file: Path, *, then: str) -> str:
    """A command that starts a daemon the classic way (fork, setsid, fork, the middle process
    exits) running ``env -i sleep 60``: no process group, no parent, no environment links it
    to the command. It writes its own pid, then the daemon's, to ``pid_file``; ``then`` is
    what the command does next ("exit" or "sleep")."""
    env, sleep = shutil.which("env"), shutil.which("sleep")
    assert env and sleep
    return f"""
import os, sys, time
pid_file = {str(pid_file)!r}
def note(pid):
    with open(pid_file, "a") as f:
        f.write(str(pid) + chr(10))
note(os.getpid())
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        note(os.getpid())  # exec keeps the pid
        os.execv({env!r}, [{env!r}, "-i", {sleep!r}, "60"])
    os._exit(0)
while open(pid_file).read().count(chr(10)) < 2:
    time.sleep(0.05)
if {then!r} == "sleep":
    time.sleep(60)
"""


def _pids(pid_file: Path, count: int) -> list[int]:
    deadline = time.monotonic() + _DEADLINE_S
    while True:
        lines = pid_file.read_text().split() if pid_file.exists() else []
        if len(lines) >= count:
            return [int(line) for line in lines[:count]]
        assert time.monotonic() < deadline, "the command never started its daemon"
        time.sleep(0.05)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return False
    return data[data.rindex(b")") + 2 :].split()[0] != b"Z"  # a zombie is dead


def _assert_stops(*pids: int) -> None:
    deadline = time.monotonic() + _DEADLINE_S
    while any(_running(pid) for pid in pids):
        assert time.monotonic() < deadline, f"still running: {[pid for pid in pids if _running(pid)]}"
        time.sleep(0.1)


def _probe_cli(*args: str, **popen) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "warp_ct", "probe", *args], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, **popen)  # fmt: skip


def test_a_daemon_with_an_empty_environment_is_stopped_on_timeout(tmp_path):
    pid_file = tmp_path / "pids"
    with pytest.raises(ProbeTimeout):
        run_measure([sys.executable, "-c", _daemonizing_program(pid_file, then="sleep")], samples=1, timeout=3)
    command, daemon = _pids(pid_file, 2)
    _assert_stops(command, daemon)


def test_a_daemon_left_by_a_command_that_exits_is_stopped(tmp_path):
    pid_file = tmp_path / "pids"
    report = run_measure([sys.executable, "-c", _daemonizing_program(pid_file, then="exit")], samples=1)
    assert report.samples[0].ok
    pids = _pids(pid_file, 4)  # the command and its daemon, cold then warm
    _assert_stops(*pids)


def test_a_probe_killed_with_sigkill_takes_the_command_and_its_daemon_along(tmp_path, no_leaked_temp_dirs):
    pid_file = tmp_path / "pids"
    cli = _probe_cli("measure", "--samples", "1", "--", sys.executable, "-c", _daemonizing_program(pid_file, then="sleep"))
    command, daemon = _pids(pid_file, 2)
    (left_behind,) = probe_temp_dirs()
    cli.kill()
    cli.communicate(timeout=_DEADLINE_S)
    _assert_stops(command, daemon)
    assert probe_temp_dirs() == {left_behind}  # nothing ran to remove it: the next run does

    again = _probe_cli("measure", "--samples", "1", "--", sys.executable, "-c", "pass")
    _out, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    assert probe_temp_dirs() == set()


def _mark(root: Path, pid: int, started: int | None) -> None:
    """A workspace directory with an owner mark as the probe writes it."""
    root.mkdir()
    boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    namespace = os.readlink("/proc/self/ns/pid")
    (root / "owner.json").write_text(json.dumps({"pid": pid, "started": started, "boot": boot, "pid_namespace": namespace}))


def _start_ticks(pid: int) -> int:
    data = Path(f"/proc/{pid}/stat").read_bytes()
    return int(data[data.rindex(b")") + 2 :].split()[19])


def test_only_provably_abandoned_workspaces_are_removed(no_leaked_temp_dirs):
    temp = no_leaked_temp_dirs
    living = subprocess.Popen(["sleep", "60"])
    finished = subprocess.Popen(["true"])
    finished.wait()
    try:
        alive = temp / f"{TEMP_PREFIX}{living.pid}-alive"
        _mark(alive, living.pid, _start_ticks(living.pid))
        reused = temp / f"{TEMP_PREFIX}{living.pid}-reused"  # same pid, another process's start time
        _mark(reused, living.pid, _start_ticks(living.pid) - 1)
        dead = temp / f"{TEMP_PREFIX}{finished.pid}-dead"
        _mark(dead, finished.pid, 1)
        unmarked = temp / f"{TEMP_PREFIX}{finished.pid}-unmarked"  # being created, or not the probe's
        unmarked.mkdir()
        wrong_pid = temp / f"{TEMP_PREFIX}{living.pid}-names-another"
        _mark(wrong_pid, finished.pid, 1)
        link = temp / f"{TEMP_PREFIX}{finished.pid}-link"
        link.symlink_to(dead)

        remove_stale_workspaces()

        left = {path.name for path in temp.iterdir()}
        assert left == {alive.name, unmarked.name, wrong_pid.name, link.name}
    finally:
        living.kill()
        living.wait()
        for path in temp.iterdir():
            if path.is_symlink():
                path.unlink()
            else:
                shutil.rmtree(path)


def test_output_is_drained_and_only_its_tail_kept(tmp_path):
    program = (
        "import sys\n"
        "line = 'x' * 1023 + chr(10)\n"
        "for i in range(6 * 1024):\n"  # 6 MiB on each stream, interleaved
        "    sys.stdout.write(line); sys.stderr.write(line)\n"
        "sys.stdout.write('last line of stdout'); sys.stderr.write('last line of stderr')\n"
    )
    with Workspace() as workspace:
        dirs = workspace.new_sample(0)
        env = child_environment(os.environ, dirs, bootstrap_dir=None, records_dir=None)
        # A command blocked on a full pipe would hit the timeout instead of exiting.
        child = run_child([sys.executable, "-c", program], cwd=None, env=env, output_dir=dirs.root, timeout=300, cancel=None)
        stdout = (dirs.root / "stdout.txt").read_bytes()
        stderr = (dirs.root / "stderr.txt").read_bytes()
    assert child.exit_code == 0
    assert len(stdout) == len(stderr) == OUTPUT_TAIL_BYTES
    assert stdout.endswith(b"last line of stdout") and stderr.endswith(b"last line of stderr")
    assert child.stderr_tail.endswith("last line of stderr")


@pytest.mark.parametrize(
    "option, value",
    [("--timeout", "nan"), ("--timeout", "inf"), ("--timeout", "-inf"), ("--timeout", "0"), ("--timeout", "-1"),
     ("--timeout", "soon"), ("--samples", "0"), ("--samples", "-3"), ("--samples", "2.5")],
)  # fmt: skip
@pytest.mark.parametrize("verb", ["measure", "levers"])
def test_bad_numbers_are_refused_before_anything_runs(tmp_path, verb, option, value):
    ran = tmp_path / "ran"
    cli = _probe_cli(verb, option, value, "--", sys.executable, "-c", f"open({str(ran)!r}, 'w')")
    _out, err = cli.communicate(timeout=120)
    assert cli.returncode == 2, err
    assert "Traceback" not in err
    assert err.splitlines()[-1].startswith(f"warp-ct probe {verb}: error: argument {option}: expected"), err
    assert not ran.exists()


@pytest.mark.parametrize("timeout", [float("nan"), float("inf"), 0, -1.0])
def test_run_measure_refuses_a_timeout_that_is_no_limit(timeout):
    with pytest.raises(ProbeError) as caught:
        run_measure([sys.executable, "-c", "pass"], samples=1, timeout=timeout)
    assert caught.value.exit_code == 2 and "--timeout" in str(caught.value)


@pytest.mark.parametrize("verb", ["measure", "levers"])
@pytest.mark.parametrize("option", ["--json", "--html"])
def test_an_unwritable_report_path_is_refused_before_anything_runs(tmp_path, verb, option):
    ran = tmp_path / "ran"
    command = ["--", sys.executable, "-c", f"open({str(ran)!r}, 'w')"]
    a_folder = tmp_path / "reports"
    a_folder.mkdir()
    cases = {
        str(tmp_path / "missing" / "report"): "does not exist",
        str(a_folder): "is a directory",
    }
    for path, reason in cases.items():
        cli = _probe_cli(verb, "--samples", "1", option, path, *command)
        _out, err = cli.communicate(timeout=120)
        assert cli.returncode == 2, err
        (line,) = err.splitlines()
        assert line.startswith(f"warp-ct: error: cannot write {option} {path}:") and reason in line, line
        assert not ran.exists()
