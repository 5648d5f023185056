"""Private caches and a supervised child process for each measured run.

Every ``run_measure`` call owns one directory under the system temp dir, named with
:data:`TEMP_PREFIX`, holding the bootstrap and one sub-directory per sample (Warp kernel
cache, CUDA driver cache, TMPDIR for Warp's per-process precompiled headers, records,
captured output). :class:`Workspace` removes it on every exit path; the user's own caches
are never named, so they cannot be read, written or cleared.

The child runs as an argv list (no shell) in its own process group, so a timeout, a
cancel or Ctrl-C stops the command *and* anything it spawned. A descendant that called
``setsid()`` has left that group: every child environment carries :data:`OWNER_ENV` (the
workspace path), and on Linux the probe finds such escapees by that marker in
``/proc/<pid>/environ`` and, while their parent lives, by parentage. Anything still running
when a run ends, or when the workspace is removed, is stopped the same way. Elsewhere the
process group is all the probe can reach.
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
# Inherited by everything the command starts: how the probe recognises its processes.
OWNER_ENV = "WARP_CT_PROBE_OWNER"
_STDERR_TAIL_BYTES = 4000
_KILL_GRACE_S = 2.0
_KILL_ROUNDS = 5  # SIGKILL scans: a process that forked between a scan and its kill is caught next round


@dataclass(frozen=True)
class SampleDirs:
    """The private directories of one sample (shared by its cold and warm run)."""

    root: Path
    warp_cache: Path
    cuda_cache: Path
    tmp: Path
    owner: str = ""  # the workspace's OWNER_ENV marker

    def records_for(self, run: str) -> Path:
        path = self.root / f"records-{run}"
        path.mkdir(exist_ok=True)
        return path


class Workspace:
    """Context manager owning the temp tree of one measurement; always removed on exit.

    The directory name carries this process's pid, so the CLI can sweep its own workspaces
    after an interruption that landed before or inside this context (:func:`remove_own_workspaces`).
    """

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-"))
        self.owner = str(self.root)
        try:
            self.bootstrap_dir = self.root / "bootstrap"
            self.bootstrap_dir.mkdir()
            shutil.copyfile(bootstrap_source(), self.bootstrap_dir / "sitecustomize.py")
        except BaseException:
            self.remove()
            raise

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.remove()

    def remove(self) -> None:
        _remove_workspace(self.root)

    def new_sample(self, index: int) -> SampleDirs:
        root = self.root / f"sample-{index}"
        dirs = SampleDirs(root, root / "warp-cache", root / "cuda-cache", root / "tmp", self.owner)
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
    if dirs.owner:
        env[OWNER_ENV] = dirs.owner
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
    """Run ``argv`` to completion and time it; stop everything it started on timeout/cancel.

    Output goes to files (no pipes to drain, no deadlock) and only the tail of stderr is
    kept for error messages. What the command leaves running when it exits (a daemon, a
    process that called ``setsid()``) is stopped too: it would share the CPU with the next
    run and write into a workspace about to be removed.
    """
    owner = env.get(OWNER_ENV)
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
                    stop_processes(process.pid, owner, finished)
                    raise ProbeCancelled("measurement cancelled")
                if deadline is not None and time.perf_counter() > deadline:
                    stop_processes(process.pid, owner, finished)
                    raise ProbeTimeout(f"the command ran longer than the {timeout:g} s timeout and was stopped")
        except KeyboardInterrupt:
            stop_processes(process.pid, owner, finished)
            raise ProbeCancelled("interrupted") from None
        wall_s = end[0] - start
        stop_processes(process.pid, owner, finished)  # leftovers only: the command has exited
    return ChildResult(process.returncode, wall_s, start_epoch, _tail(stderr_path), cpu[0] if cpu else None)


def stop_processes(group: int | None, owner: str | None, finished: threading.Event | None = None) -> None:
    """SIGTERM process group ``group`` and every process carrying the ``owner`` marker (or
    descending from the group's leader while it runs), then SIGKILL whatever is left after a
    grace period. ``finished`` is set once the leader has been reaped: from then on its pid
    may name another process, so parentage is no longer followed.
    """

    def leader() -> int | None:
        return group if finished is not None and not finished.is_set() else None

    found = _owned_processes(owner, leader())
    if not _signal_all(signal.SIGTERM, group, found):
        return  # nothing was running: the usual case when a command exits cleanly
    deadline = time.monotonic() + _KILL_GRACE_S
    while time.monotonic() < deadline:
        if leader() is None and not _group_exists(group) and not any(_running(pid) for pid in found):
            break
        time.sleep(0.05)
    for _round in range(_KILL_ROUNDS):
        # Keep the escapees found by parentage: once their parent dies, only their pid is left.
        found = {pid for pid in found if _running(pid)} | _owned_processes(owner, leader())
        if not _signal_all(signal.SIGKILL, group, found):
            break
        time.sleep(0.05)
    if finished is not None:
        finished.wait(_KILL_GRACE_S)


def _signal_all(sig: int, group: int | None, pids: set[int]) -> bool:
    """Send ``sig`` to the group and to each pid; True when any of them existed."""
    delivered = False
    if group is not None:
        try:
            os.killpg(group, sig)
            delivered = True
        except (ProcessLookupError, PermissionError):
            pass
    for pid in pids:
        try:
            os.kill(pid, sig)
            delivered = True
        except (ProcessLookupError, PermissionError):
            pass
    return delivered


def _group_exists(group: int | None) -> bool:
    if group is None:
        return False
    try:
        os.killpg(group, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _running(pid: int) -> bool:
    """Alive and not a zombie (a zombie is dead: its parent, or init, reaps it)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
        return data[data.rindex(b")") + 2 :].split()[0] != b"Z"
    except FileNotFoundError:
        return False
    except (OSError, ValueError, IndexError):
        try:  # no /proc (macOS): existence is all we can tell
            os.kill(pid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True


def _owned_processes(owner: str | None, leader: int | None) -> set[int]:
    """Live processes carrying ``OWNER_ENV=owner`` in their environment, plus every
    descendant of ``leader`` (Linux ``/proc``; elsewhere an empty set).

    The marker finds a process that left the group and lost its parent; parentage finds
    one that also cleared its environment, as long as its parent lives.
    """
    needle = f"{OWNER_ENV}={owner}".encode() if owner else None
    try:
        entries = os.listdir("/proc")
    except OSError:
        return set()
    me = os.getpid()
    children: dict[int, list[int]] = {}
    found: set[int] = set()
    for entry in entries:
        if not entry.isdigit() or int(entry) == me:
            continue
        pid = int(entry)
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                data = f.read()
            fields = data[data.rindex(b")") + 2 :].split()  # the name in (...) may hold spaces
            if fields[0] == b"Z":
                continue
            children.setdefault(int(fields[1]), []).append(pid)
        except (OSError, ValueError, IndexError):
            continue
        if needle is not None:
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    if needle in f.read().split(b"\0"):
                        found.add(pid)
            except OSError:  # another user's process, or it just exited
                pass
    if leader is not None:
        stack = list(children.get(leader, ()))
        while stack:
            pid = stack.pop()
            if pid not in found:
                found.add(pid)
                stack.extend(children.get(pid, ()))
    return found


def _remove_workspace(root: Path) -> None:
    """Stop whatever still runs in the workspace ``root``, then delete it."""

    def make_writable_and_retry(func, path, _exc_info):  # read-only files from the child
        try:
            os.chmod(path, stat.S_IWRITE | stat.S_IREAD | stat.S_IEXEC)
            func(path)
        except OSError:
            pass

    stop_processes(None, str(root))
    shutil.rmtree(root, onerror=make_writable_and_retry)


def remove_own_workspaces() -> None:
    """Remove the workspaces this process created that are still there (the CLI's last
    sweep after an interruption: one can land before a ``with Workspace()`` is entered)."""
    prefix = f"{TEMP_PREFIX}{os.getpid()}-"
    temp = Path(tempfile.gettempdir())
    try:
        names = [name for name in os.listdir(temp) if name.startswith(prefix)]
    except OSError:
        return
    for name in names:
        _remove_workspace(temp / name)


def _tail(path: Path) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - _STDERR_TAIL_BYTES))
            return f.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
