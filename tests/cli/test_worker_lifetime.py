"""`warp-ct lint -j 2`'s workers end with it, however it is ended (SIGTERM, SIGHUP, SIGKILL),
and let go of the caller's output pipes: whatever reads them gets EOF."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.perf.generate import warp_like_source

from .conftest import ROOT

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds processes through /proc")

# Generous: a loaded machine is slow to fork and to die; the checks poll, they never time.
DEADLINE_S = 10.0
START_DEADLINE_S = 120.0


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Projects whose Warp files (megabytes, far above what starts workers) keep a run busy
    for seconds: the largest, linted by the parent, is big enough for tree workers too."""
    root = tmp_path_factory.mktemp("workspace")
    text = warp_like_source(5000)
    for project, files in (("big", 14), ("one", 4), ("two", 4), ("three", 4)):
        (root / project / "pkg").mkdir(parents=True)
        (root / project / "pyproject.toml").write_text(f'[project]\nname = "{project}"\n', encoding="utf-8")
        for i in range(files):
            (root / project / "pkg" / f"mod{i}.py").write_text(text, encoding="utf-8")
    return root


def _stat(pid: int) -> list[str] | None:
    """/proc/<pid>/stat's fields after the command name (state first), None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _children(parent: int) -> dict[int, str]:
    """The processes whose parent is ``parent``, with their start times (a reused pid is another process)."""
    found = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (fields := _stat(int(name))) is not None and int(fields[1]) == parent:
            found[int(name)] = fields[19]
    return found


def _alive(workers: dict[int, str]) -> list[int]:
    return [pid for pid, started in workers.items() if (fields := _stat(pid)) is not None and fields[0] != "Z" and fields[19] == started]


@pytest.mark.parametrize(
    ("signum", "workers_to_wait_for"),
    [
        (signal.SIGTERM, 1),  # the run's worker, linting a project beside the parent's
        (signal.SIGHUP, 1),
        (signal.SIGKILL, 1),
        (signal.SIGTERM, 3),  # and the tree workers the parent forked for its own project
        (signal.SIGKILL, 3),
    ],
    ids=["TERM", "HUP", "KILL", "TERM-tree-workers", "KILL-tree-workers"],
)
def test_workers_end_with_the_run_and_the_output_pipes_close(workspace: Path, signum: int, workers_to_wait_for: int) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    run = subprocess.Popen(
        [sys.executable, "-m", "warp_ct", "lint", "-j", "2", "--no-cache", "."],
        cwd=workspace, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    workers: dict[int, str] = {}
    try:
        start = time.monotonic()
        while len(workers) < workers_to_wait_for and run.poll() is None and time.monotonic() - start < START_DEADLINE_S:
            workers.update(_children(run.pid))
            time.sleep(0.05)
        if run.poll() is not None:
            _out, err = run.communicate()
            assert run.returncode in (0, 1), err.decode("utf-8", "replace")
            pytest.skip(f"the run ended before {workers_to_wait_for} workers were seen: nothing to signal")
        assert len(workers) >= workers_to_wait_for, f"no workers after {START_DEADLINE_S} s"
        run.send_signal(signum)
        try:
            run.communicate(timeout=DEADLINE_S)  # EOF on stdout and stderr: no worker holds them
        except subprocess.TimeoutExpired:
            pytest.fail(f"the output pipes are still open {DEADLINE_S} s after the signal; workers alive: {_alive(workers)}")
        # Dead of the signal, as it would be without workers (a shell shows 128 + signum).
        assert run.returncode in (-signum, 128 + signum)
        deadline = time.monotonic() + DEADLINE_S
        while _alive(workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(workers)
    finally:
        for pid in _alive(workers):  # a failed run's leftovers: this test's own processes only
            os.kill(pid, signal.SIGKILL)
        if run.poll() is None:
            run.kill()
        run.wait()
        run.stdout.close()  # type: ignore[union-attr]
        run.stderr.close()  # type: ignore[union-attr]
