"""Errors the probe reports to users: one clear sentence and the exit code that goes with it.

Exit codes (``warp-ct probe measure``; also ``ProbeError.exit_code``):

====  =========================================================================
0     measured (at least one sample ran to completion)
2     usage error, unreadable/invalid report, output that cannot be written
3     the command failed in every sample
4     a run exceeded ``--timeout``
5     Warp is not importable in the command's environment
126   the command exists but cannot be executed
127   the command was not found
130   interrupted (Ctrl-C, SIGTERM, SIGHUP) or cancelled
====  =========================================================================
"""

from __future__ import annotations

from typing import Any

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_ALL_SAMPLES_FAILED = 3
EXIT_TIMEOUT = 4
EXIT_WARP_MISSING = 5
EXIT_NOT_EXECUTABLE = 126
EXIT_COMMAND_NOT_FOUND = 127
EXIT_INTERRUPTED = 130


class ProbeError(Exception):
    """A failure to report to the user as ``str(error)``, exiting with ``exit_code``."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class CommandNotFound(ProbeError):
    exit_code = EXIT_COMMAND_NOT_FOUND


class CommandNotExecutable(ProbeError):
    exit_code = EXIT_NOT_EXECUTABLE


class AllSamplesFailed(ProbeError):
    """The command failed in every sample. ``report`` holds the samples all the same (what each
    run loaded and built before it failed): ``--json`` still writes it."""

    exit_code = EXIT_ALL_SAMPLES_FAILED

    def __init__(self, message: str, report: Any = None):
        super().__init__(message)
        self.report = report


class ProbeTimeout(ProbeError):
    exit_code = EXIT_TIMEOUT


class WarpMissing(ProbeError):
    exit_code = EXIT_WARP_MISSING


class ProbeCancelled(ProbeError):
    """Raised when ``cancel`` is set or the user interrupts; the child is already stopped."""

    exit_code = EXIT_INTERRUPTED


class ReportError(ProbeError):
    """A report file that is missing, not JSON, or of an unknown schema version."""

    exit_code = EXIT_USAGE
