"""The process between the probe and the measured command: it runs the command, times it,
and stops everything the command started, whatever happens to the probe.

Run by :func:`warp_ct.probe.isolation.run_child` as::

    python -I -S supervisor.py PROBE_PID STATUS_FD -- CMD...

It writes one JSON line to ``STATUS_FD`` as soon as the command exits (``exit_code``,
``wall_s``, ``start_epoch``, ``cpu_s``), or ``spawn_error`` (an errno) when the command
cannot be started; then it stops what the command left running and exits.

Why a separate process (Linux): it is a *child subreaper*, so every descendant of the
command that loses its parent (a double fork, a daemon that called ``setsid()`` and cleared
its environment) is re-parented to it instead of to init, and stays findable as its
descendant; and it asks to receive SIGTERM when the probe dies (``PR_SET_PDEATHSIG``), even
by SIGKILL, so the command's whole tree dies with the probe. Doing this in the probe itself
would make the probe (possibly the language server) the parent of strangers' orphans.
Elsewhere it runs the command the same way and reaches the command's process group only.

Standard library only, and ``-I -S``: the command's PYTHONPATH, user site and the probe's
``sitecustomize`` bootstrap stay out of this interpreter.
"""

import os
import sys

# Python 3.10's -I still puts this script's folder first on sys.path, where the probe's own
# modules (html.py, stats.py, ...) would shadow the standard library's.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [entry for entry in sys.path if entry and os.path.abspath(entry) != _HERE]

import json  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
_KILL_GRACE_S = 2.0
_KILL_ROUNDS = 5  # SIGKILL scans: a process that forked between a scan and its kill is caught next round


class StopRequested(Exception):
    """The probe (or its death) asked to stop the command now."""


_stopping = False


def _request_stop(_signum, _frame):
    global _stopping
    if not _stopping:  # later signals: the stop is already under way
        _stopping = True
        raise StopRequested


def _linux_prctl():
    """libc's ``prctl``, or None where there is none (not Linux)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError, ImportError):
        return None


def main(argv):
    probe_pid, status_fd, command = int(argv[1]), int(argv[2]), argv[4:]
    os.set_inheritable(status_fd, False)  # the command and its children must not hold it open
    # Stops stay pending until the command has started, so none lands between its fork and
    # knowing its pid; from then on one raises StopRequested wherever this process is.
    signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    for sig in _STOP_SIGNALS:
        signal.signal(sig, _request_stop)
    prctl = _linux_prctl()
    if prctl is not None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    if os.getppid() != probe_pid:
        return 0  # the probe died before PDEATHSIG was armed: nothing to run for

    start_epoch = time.time()
    start = time.perf_counter()
    try:
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=_command_setup(prctl)
        )
    except OSError as error:
        _write_status(status_fd, {"spawn_error": error.errno, "message": error.strerror or str(error)})
        return 0
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)  # a pending stop raises here
        status, usage = _wait_reaping_orphans(process.pid)
        _write_status(
            status_fd,
            {
                "exit_code": os.waitstatus_to_exitcode(status),
                "wall_s": time.perf_counter() - start,
                "start_epoch": start_epoch,
                # wait4's CPU time barely moves when other processes load the machine.
                "cpu_s": usage.ru_utime + usage.ru_stime,
            },
        )
        process.returncode = os.waitstatus_to_exitcode(status)
    except StopRequested:
        pass
    finally:
        _ignore_further_stops()
        _stop_descendants(process.pid)
    return 0


def _command_setup(prctl):
    """What the command's process does between fork and exec."""

    def setup():
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
        for sig in _STOP_SIGNALS:
            signal.signal(sig, signal.SIG_DFL)
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # if this supervisor is killed

    return setup


def _ignore_further_stops():
    global _stopping
    _stopping = True


def _wait_reaping_orphans(pid):
    """Wait for ``pid``; orphans re-parented here meanwhile are reaped as they exit."""
    while True:
        reaped, status, usage = os.wait4(-1, 0)
        if reaped == pid:
            return status, usage


def _write_status(fd, status):
    try:
        os.write(fd, (json.dumps(status) + "\n").encode())
    except OSError:  # the probe is gone
        pass


def _stop_descendants(group):
    """SIGTERM the command's process group and every descendant of this process, SIGKILL
    what is left after a grace period, and reap them."""
    if not _signal_all(signal.SIGTERM, group, _descendants()):
        _reap()
        return  # nothing was running: the usual case when a command exits cleanly
    deadline = time.monotonic() + _KILL_GRACE_S
    while time.monotonic() < deadline:
        _reap()
        if not _descendants() and not _group_has_running(group):
            break
        time.sleep(0.05)
    for _round in range(_KILL_ROUNDS):
        _reap()
        if not _signal_all(signal.SIGKILL, group, _descendants()):
            break
        time.sleep(0.05)
    _reap()


def _signal_all(sig, group, pids):
    """Send ``sig`` to the group and to each pid; True when any of them existed."""
    delivered = False
    try:
        os.killpg(group, sig)
        delivered = _group_has_running(group)
    except (ProcessLookupError, PermissionError):
        pass
    for pid in pids:
        try:
            os.kill(pid, sig)
            delivered = True
        except (ProcessLookupError, PermissionError):
            pass
    return delivered


def _group_has_running(group):
    """Whether ``group`` still exists; with /proc, only running (not zombie) members count."""
    try:
        os.killpg(group, 0)
    except (ProcessLookupError, PermissionError):
        return False
    members = _processes()
    if members is None:
        return True
    return any(pgid == group and state != b"Z" for _ppid, pgid, state in members.values())


def _reap():
    """Collect every child that has exited (the command's orphans end up here)."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _descendants():
    """Running descendants of this process (Linux ``/proc``; elsewhere an empty set).

    As a subreaper, this process inherits every orphan of the command's tree, so the tree
    hangs from it whatever its members did with their sessions and environments.
    """
    processes = _processes()
    if not processes:
        return set()
    children = {}
    for pid, (ppid, _pgid, _state) in processes.items():
        children.setdefault(ppid, []).append(pid)
    found = set()
    stack = list(children.get(os.getpid(), ()))
    while stack:
        pid = stack.pop()
        found.add(pid)
        stack.extend(children.get(pid, ()))
    return {pid for pid in found if processes[pid][2] != b"Z"}


def _processes():
    """``{pid: (ppid, pgid, state)}`` from ``/proc``, or None without it."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    processes = {}
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                data = f.read()
            fields = data[data.rindex(b")") + 2 :].split()  # the name in (...) may hold spaces
            processes[int(entry)] = (int(fields[1]), int(fields[2]), fields[0])
        except (OSError, ValueError, IndexError):
            continue
    return processes


if __name__ == "__main__":
    sys.exit(main(sys.argv))
