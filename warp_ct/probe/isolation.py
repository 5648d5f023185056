"""Private caches and a supervised child process for each measured run.

Every ``run_measure`` call owns one directory under the system temp dir, named with
:data:`TEMP_PREFIX` and this process's pid, holding an owner mark (pid, process start time,
boot), the bootstrap and one sub-directory per sample (Warp kernel cache, CUDA driver cache,
TMPDIR for Warp's per-process precompiled headers, records, the tails of the captured
output). :class:`Workspace` removes it on every exit path; one left by a probe that was
killed (SIGKILL, a crash) is removed by the next probe once its mark proves the owner gone.
The user's own caches are never named, so they cannot be read, written or cleared.

The command runs as an argv list (no shell) under :mod:`~warp_ct.probe.supervisor`, in its
own process group. On Linux the supervisor is a child subreaper that dies with the probe,
so whatever the command starts (in its group, in a new session, with an empty environment)
stays its descendant and is stopped at the end of the run, on timeout, cancel, Ctrl-C, and
when the probe itself is killed. As a further net, every child environment carries
:data:`OWNER_ENV` (the workspace path), and the probe also stops processes carrying that
marker in ``/proc/<pid>/environ``. Elsewhere the process group is all that can be reached.
"""

from __future__ import annotations

import errno
import json
import os
import re
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

try:
    import fcntl
except ImportError:  # not POSIX
    fcntl = None  # type: ignore[assignment]

from warp_ct.probe.errors import CommandNotExecutable, CommandNotFound, ProbeCancelled, ProbeError, ProbeTimeout
from warp_ct.probe.inject import LEVER_ENV, RECORDS_DIR_ENV, bootstrap_source

TEMP_PREFIX = "warp-ct-probe-"
# Inherited by everything the command starts: how the probe recognises its processes.
OWNER_ENV = "WARP_CT_PROBE_OWNER"
# What is kept of each output stream of a run: its last MiB (a program may print hundreds).
OUTPUT_TAIL_BYTES = 1 << 20
_STDERR_TAIL_BYTES = 4000
_KILL_GRACE_S = 2.0
_SUPERVISOR = Path(__file__).with_name("supervisor.py")
# The supervisor's own SIGTERM grace and SIGKILL rounds, with a wide margin for a busy machine.
_SUPERVISOR_CLEANUP_S = 3 * _KILL_GRACE_S + 4.0
_DRAIN_AFTER_EXIT_S = 5.0
_STATUS_LINE_BYTES = 4096
_POLL_S = 0.05
_READ_BYTES = 1 << 16
_PIPE_BYTES = 1 << 20
_OWNER_MARK = "owner.json"
_WORKSPACE_NAME = re.compile(re.escape(TEMP_PREFIX) + r"(\d+)-")
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
    after an interruption that landed before or inside this context (:func:`remove_own_workspaces`);
    its owner mark lets a later probe remove it if this process is killed before it can
    (:func:`remove_stale_workspaces`, run here first).
    """

    def __init__(self) -> None:
        remove_stale_workspaces()
        self.root = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-"))
        self.owner = str(self.root)
        try:
            (self.root / _OWNER_MARK).write_text(json.dumps(_owner_identity(os.getpid())))
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

    The command runs under :mod:`~warp_ct.probe.supervisor`, which times it, stops what it
    leaves running when it exits (a daemon, a process that called ``setsid()``: it would
    share the CPU with the next run and write into a workspace about to be removed), and
    stops its whole tree if this process dies. Its output is drained as it comes and only
    the last :data:`OUTPUT_TAIL_BYTES` of each stream are kept, in ``output_dir``.
    """
    if cwd is not None and not os.path.isdir(cwd):
        raise CommandNotFound(f"working directory not found: {cwd}", exit_code=2)
    supervised = _SupervisedCommand(argv, cwd=cwd, env=env)
    try:
        supervised.wait(timeout, cancel)
    finally:
        supervised.stop()
        stderr_tail = supervised.output.finish(output_dir)
    return supervised.result(argv, stderr_tail)


class _SupervisedCommand:
    """The supervisor process running one command, and what it reports."""

    def __init__(self, argv: Sequence[str], *, cwd: str | None, env: Mapping[str, str]) -> None:
        self.owner = env.get(OWNER_ENV)
        status_read, status_write = os.pipe()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", str(_SUPERVISOR), str(os.getpid()), str(status_write), "--", *argv],
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(status_write,),
                # Its own session: a Ctrl-C in the terminal reaches the probe, which stops the run.
                start_new_session=True,
            )
        except OSError as error:  # the working directory went away or cannot be entered
            os.close(status_read)
            raise ProbeError(f"cannot start the command in {cwd or os.getcwd()}: {error.strerror or error}") from None
        except BaseException:
            os.close(status_read)
            raise
        finally:
            os.close(status_write)
        self.output = _OutputTails({"stdout": self.process.stdout, "stderr": self.process.stderr})
        self.status: dict[str, object] = {}
        self.command_exited = threading.Event()  # the status line came, or the supervisor is gone
        self.exited = threading.Event()  # the supervisor has been reaped: its pid may be reused
        threading.Thread(target=self._follow, args=(status_read,), name="warp-ct-probe-wait", daemon=True).start()

    def _follow(self, status_read: int) -> None:
        with open(status_read, "rb") as pipe:
            line = pipe.readline(_STATUS_LINE_BYTES)
        try:
            status = json.loads(line) if line else {}
        except ValueError:
            status = {}
        if isinstance(status, dict):
            self.status = status
        self.command_exited.set()
        self.process.wait()
        self.exited.set()

    def wait(self, timeout: float | None, cancel: threading.Event | None) -> None:
        """Until the command has exited and the supervisor has stopped what it left running."""
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            while not self.command_exited.wait(_POLL_S):
                if cancel is not None and cancel.is_set():
                    self.stop()
                    raise ProbeCancelled("measurement cancelled")
                if deadline is not None and time.monotonic() > deadline:
                    self.stop()
                    raise ProbeTimeout(f"the command ran longer than the {timeout:g} s timeout and was stopped")
            self.exited.wait(_SUPERVISOR_CLEANUP_S)
        except KeyboardInterrupt:
            self.stop()
            raise ProbeCancelled("interrupted") from None

    def stop(self) -> None:
        """Ask the supervisor to stop the command's tree; if it does not, stop it from here.
        Then stop anything still carrying the workspace's marker."""
        if not self.exited.is_set():
            self.process.send_signal(signal.SIGTERM)
            if not self.exited.wait(_SUPERVISOR_CLEANUP_S):
                stop_processes(self.process.pid, self.owner, self.exited)
        stop_processes(None, self.owner)

    def result(self, argv: Sequence[str], stderr_tail: str) -> ChildResult:
        status = self.status
        if "spawn_error" in status:
            reason = status.get("message") or "cannot start it"
            if status["spawn_error"] == errno.ENOENT:
                raise CommandNotFound(f"command not found: {argv[0]} ({reason})")
            raise CommandNotExecutable(f"command is not executable: {argv[0]} ({reason})")
        try:
            return ChildResult(
                exit_code=int(status["exit_code"]),  # type: ignore[call-overload]
                wall_s=float(status["wall_s"]),  # type: ignore[arg-type]
                start_epoch=float(status["start_epoch"]),  # type: ignore[arg-type]
                stderr_tail=stderr_tail,
                cpu_s=None if status.get("cpu_s") is None else float(status["cpu_s"]),  # type: ignore[arg-type]
            )
        except (KeyError, TypeError, ValueError):
            raise ProbeError(
                f"the probe's supervisor ended without a result (exit code {self.process.returncode})"
                + (f": {stderr_tail.strip()[-500:]}" if stderr_tail.strip() else "")
            ) from None


class _OutputTails:
    """Drains the command's stdout and stderr as they come, so it never waits on a full pipe,
    and keeps the last ``limit`` bytes of each: a program may print hundreds of MB, and only
    the end of stderr is ever read (to explain a failure)."""

    def __init__(self, streams: Mapping[str, IO[bytes] | None], limit: int = OUTPUT_TAIL_BYTES) -> None:
        self._streams = {name: stream for name, stream in streams.items() if stream is not None}
        self._tails = {name: bytearray() for name in self._streams}
        self._limit = limit
        self._stop = threading.Event()
        for stream in self._streams.values():
            _widen_pipe(stream.fileno())
        self._thread = threading.Thread(target=self._drain, name="warp-ct-probe-output", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        with selectors.DefaultSelector() as selector:
            for name, stream in self._streams.items():
                selector.register(stream, selectors.EVENT_READ, name)
            while selector.get_map() and not self._stop.is_set():
                for key, _events in selector.select(timeout=_POLL_S):
                    try:
                        chunk = os.read(key.fd, _READ_BYTES)
                    except OSError:
                        chunk = b""
                    if chunk:
                        self._keep(key.data, chunk)
                    else:  # end of file: every writer has exited
                        selector.unregister(key.fileobj)

    def _keep(self, name: str, chunk: bytes) -> None:
        tail = self._tails[name]
        tail += chunk
        if len(tail) > 2 * self._limit:  # trim in batches: one copy per `limit` bytes read
            del tail[: len(tail) - self._limit]

    def finish(self, output_dir: Path) -> str:
        """Stop draining, write the tails to ``output_dir/<stream>.txt``; the end of stderr."""
        # End of file comes once the command's tree is stopped; a process beyond reach (no
        # /proc) may still hold a pipe, and is not waited for.
        self._thread.join(_DRAIN_AFTER_EXIT_S)
        self._stop.set()
        self._thread.join()
        for name, stream in self._streams.items():
            stream.close()
            try:
                (output_dir / f"{name}.txt").write_bytes(self.kept(name))
            except OSError:
                pass
        return self.kept("stderr")[-_STDERR_TAIL_BYTES:].decode("utf-8", errors="replace")

    def kept(self, name: str) -> bytes:
        return bytes(self._tails.get(name, b"")[-self._limit :])


def _widen_pipe(fd: int) -> None:
    """A larger pipe buffer (Linux) lets a chatty command write on while the reader thread
    waits for the GIL."""
    set_pipe_size = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if set_pipe_size is not None:
        try:
            fcntl.fcntl(fd, set_pipe_size, _PIPE_BYTES)
        except OSError:  # above the system's pipe-max-size: keep the default
            pass


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


def remove_stale_workspaces() -> None:
    """Remove the workspaces of probes that died without removing them (SIGKILL, a crash, a
    power cut), with whatever still runs in them.

    Only a directory that is provably a probe's and provably abandoned goes: this user's real
    directory (not a link), named by the probe, holding an owner mark that names the same pid,
    whose process is gone (no such pid, or one started at another time, or an earlier boot).
    A workspace whose mark is missing or unreadable (one being created right now) is left.
    """
    temp = Path(tempfile.gettempdir())
    try:
        names = os.listdir(temp)
    except OSError:
        return
    for name in names:
        match = _WORKSPACE_NAME.match(name)
        if match is None or int(match[1]) == os.getpid():
            continue
        root = temp / name
        try:
            if _owner_is_gone(root, int(match[1])):
                _remove_workspace(root)
        except OSError:  # another probe removed it first, or it is not ours to remove
            continue


def _owner_is_gone(root: Path, pid: int) -> bool:
    mark = _read_owner_mark(root)
    if mark is None or mark.get("pid") != pid:
        return False
    here = _owner_identity(None)
    if mark.get("boot") and here["boot"] and mark["boot"] != here["boot"]:
        return True  # every process of an earlier boot is gone
    if mark.get("pid_namespace") != here["pid_namespace"]:
        return False  # another container sharing this temp dir: its pids are not ours to judge
    started_now = _start_ticks(pid)
    if started_now is not None and mark.get("started") is not None:
        return started_now != mark["started"]  # its pid now names a process started later
    return not _pid_exists(pid)


def _read_owner_mark(root: Path) -> dict[str, object] | None:
    """The owner mark of a directory this user owns, or None."""
    uid = os.getuid()
    try:
        directory = os.lstat(root)
        mark_path = root / _OWNER_MARK
        mark_file = os.lstat(mark_path)
        if not (stat.S_ISDIR(directory.st_mode) and directory.st_uid == uid):
            return None
        if not (stat.S_ISREG(mark_file.st_mode) and mark_file.st_uid == uid):
            return None
        with open(mark_path, "rb") as f:
            mark = json.loads(f.read(_STATUS_LINE_BYTES))
    except (OSError, ValueError):
        return None
    return mark if isinstance(mark, dict) else None


def _owner_identity(pid: int | None) -> dict[str, object]:
    """What tells process ``pid`` from a later one with the same pid (Linux; elsewhere the pid)."""
    return {
        "pid": pid,
        "started": None if pid is None else _start_ticks(pid),
        "boot": _read_text("/proc/sys/kernel/random/boot_id"),
        "pid_namespace": _pid_namespace(),
    }


def _start_ticks(pid: int) -> int | None:
    """When ``pid`` started, in clock ticks since boot; None if it does not exist or there is no /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
        return int(data[data.rindex(b")") + 2 :].split()[19])  # field 22, counted after the (name)
    except (OSError, ValueError, IndexError):
        return None


def _pid_namespace() -> str | None:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return None


def _pid_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="ascii") as f:
            return f.read().strip() or None
    except (OSError, ValueError):
        return None
