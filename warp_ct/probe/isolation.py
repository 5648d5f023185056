"""Private caches and a supervised child process for each measured run.

Every ``run_measure`` call owns one directory under the system temp dir, named with
:data:`TEMP_PREFIX`, holding the bootstrap and one sub-directory per sample (Warp kernel
cache, CUDA driver cache, TMPDIR for Warp's per-process precompiled headers, records,
captured output). :class:`Workspace` removes it on every exit path; the user's own caches
are never named, so they cannot be read, written or cleared.

The child runs as an argv list (no shell) in its own process group, so a timeout, a
cancel or Ctrl-C stops the command *and* anything it spawned.
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from warp_ct.probe.errors import CommandNotExecutable, CommandNotFound, ProbeCancelled, ProbeTimeout
from warp_ct.probe.inject import LEVER_ENV, RECORDS_DIR_ENV, bootstrap_source

TEMP_PREFIX = "warp-ct-probe-"
_STDERR_TAIL_BYTES = 4000
_KILL_GRACE_S = 2.0


@dataclass(frozen=True)
class SampleDirs:
    """The private directories of one sample (shared by its cold and warm run)."""

    root: Path
    warp_cache: Path
    cuda_cache: Path
    tmp: Path

    def records_for(self, run: str) -> Path:
        path = self.root / f"records-{run}"
        path.mkdir(exist_ok=True)
        return path


class Workspace:
    """Context manager owning the temp tree of one measurement; always removed on exit."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX))
        self.bootstrap_dir = self.root / "bootstrap"
        self.bootstrap_dir.mkdir()
        shutil.copyfile(bootstrap_source(), self.bootstrap_dir / "sitecustomize.py")

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.remove()

    def remove(self) -> None:
        def make_writable_and_retry(func, path, _exc_info):  # read-only files from the child
            try:
                os.chmod(path, stat.S_IWRITE | stat.S_IREAD | stat.S_IEXEC)
                func(path)
            except OSError:
                pass

        shutil.rmtree(self.root, onerror=make_writable_and_retry)

    def new_sample(self, index: int) -> SampleDirs:
        root = self.root / f"sample-{index}"
        dirs = SampleDirs(root, root / "warp-cache", root / "cuda-cache", root / "tmp")
        for path in (dirs.root, dirs.warp_cache, dirs.cuda_cache, dirs.tmp):
            path.mkdir()
        return dirs


def child_environment(
    base: Mapping[str, str],
    dirs: SampleDirs,
    *,
    bootstrap_dir: Path | None,
    records_dir: Path | None,
    lever_json: str | None = None,
) -> dict[str, str]:
    """The user's environment with private caches; the bootstrap first on PYTHONPATH.

    ``bootstrap_dir=None`` gives the same isolated environment without the probe (the
    benchmark's baseline). ``lever_json``: the option change the bootstrap applies.
    """
    env = dict(base)
    env["WARP_CACHE_PATH"] = str(dirs.warp_cache)
    env["CUDA_CACHE_PATH"] = str(dirs.cuda_cache)
    # Warp builds its precompiled header in a per-process tempfile directory: keep it,
    # and any other temp file of the command, inside the sample so nothing is left behind.
    for name in ("TMPDIR", "TEMP", "TMP"):
        env[name] = str(dirs.tmp)
    env.pop(RECORDS_DIR_ENV, None)
    env.pop(LEVER_ENV, None)
    if bootstrap_dir is not None and records_dir is not None:
        existing = env.get("PYTHONPATH")
        env["PYTHONPATH"] = str(bootstrap_dir) + (os.pathsep + existing if existing else "")
        env[RECORDS_DIR_ENV] = str(records_dir)
        if lever_json is not None:
            env[LEVER_ENV] = lever_json
    return env


@dataclass(frozen=True)
class ChildResult:
    exit_code: int
    wall_s: float
    start_epoch: float
    stderr_tail: str
    cpu_s: float | None = None  # user + system CPU of the child and the descendants it waited for


def run_child(
    argv: Sequence[str],
    *,
    cwd: str | None,
    env: Mapping[str, str],
    output_dir: Path,
    timeout: float | None,
    cancel: threading.Event | None,
) -> ChildResult:
    """Run ``argv`` to completion and time it; stop its whole process group on timeout/cancel.

    Output goes to files (no pipes to drain, no deadlock) and only the tail of stderr is
    kept for error messages.
    """
    stdout_path = output_dir / "stdout.txt"
    stderr_path = output_dir / "stderr.txt"
    with open(stdout_path, "wb") as stdout, open(stderr_path, "wb") as stderr:
        start_epoch = time.time()
        start = time.perf_counter()
        try:
            process = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=stdout,
                stderr=stderr,
                start_new_session=True,
            )
        except FileNotFoundError as error:
            if cwd is not None and not os.path.isdir(cwd):
                raise CommandNotFound(f"working directory not found: {cwd}", exit_code=2) from None
            raise CommandNotFound(f"command not found: {argv[0]} ({error.strerror})") from None
        except PermissionError:
            raise CommandNotExecutable(f"command is not executable: {argv[0]}") from None

        # A thread blocks in waitpid so the end time is exact (Popen.wait(timeout) polls).
        finished = threading.Event()
        end: list[float] = []
        cpu: list[float] = []

        def wait_for_exit() -> None:
            # wait4 also returns the child's CPU time: unlike wall time, it barely moves
            # when other processes load the machine.
            try:
                _pid, status, usage = os.wait4(process.pid, 0)
            except ChildProcessError:  # reaped elsewhere; only the exit code is left
                process.wait()
            else:
                process.returncode = os.waitstatus_to_exitcode(status)
                cpu.append(usage.ru_utime + usage.ru_stime)
            end.append(time.perf_counter())
            finished.set()

        waiter = threading.Thread(target=wait_for_exit, name="warp-ct-probe-wait", daemon=True)
        waiter.start()
        deadline = None if timeout is None else start + timeout
        try:
            while not finished.wait(0.05):
                if cancel is not None and cancel.is_set():
                    _stop_group(process, finished)
                    raise ProbeCancelled("measurement cancelled")
                if deadline is not None and time.perf_counter() > deadline:
                    _stop_group(process, finished)
                    raise ProbeTimeout(f"the command ran longer than the {timeout:g} s timeout and was stopped")
        except KeyboardInterrupt:
            _stop_group(process, finished)
            raise ProbeCancelled("interrupted") from None
        wall_s = end[0] - start
    return ChildResult(process.returncode, wall_s, start_epoch, _tail(stderr_path), cpu[0] if cpu else None)


def _stop_group(process: subprocess.Popen[bytes], finished: threading.Event) -> None:
    """SIGTERM the child's process group, then SIGKILL what is still there after a grace."""
    for sig, grace in ((signal.SIGTERM, _KILL_GRACE_S), (signal.SIGKILL, _KILL_GRACE_S)):
        try:
            os.killpg(process.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        if finished.wait(grace):
            # The leader exited; make sure stragglers in its group do not outlive us.
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            return


def _tail(path: Path) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - _STDERR_TAIL_BYTES))
            return f.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
