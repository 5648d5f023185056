"""CLI wiring for the probe: ``register(subparsers)`` adds ``probe`` and ``cache-key``.

``warp_ct/cli.py`` calls :func:`register` with its argparse sub-parsers; every command sets
``handler=fn`` where ``fn(args) -> int`` is the exit code. Errors are one sentence on
stderr, never a traceback.

Exit codes
----------
``probe measure``: 0 measured · 2 usage/error · 3 the command failed in every sample ·
4 timeout · 5 Warp not importable in the command's environment · 126 not executable ·
127 command not found · 130 interrupted.

``probe levers``: as ``probe measure`` (the baseline's failures), 0 when the ledger was
written, whatever the levers' verdicts.

``probe compare``: 0 improved · 1 regression · 3 inconclusive · 4 invalid (launch
topology changed) · 2 unreadable report, or a file that is not a ``probe measure`` report.

``cache-key``: 0 key printed · 2 error · 5 Warp missing or older than 1.19 (without
``--allow-fallback``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

from warp_ct.probe.errors import EXIT_INTERRUPTED, EXIT_USAGE, AllSamplesFailed, ProbeCancelled, ProbeError

_MEASURE_EPILOG = """exit codes: 0 measured, 2 usage/error, 3 the command failed in every sample (--json still written),
4 timeout, 5 Warp not importable by the command, 126 not executable, 127 command not found,
130 interrupted (Ctrl-C, SIGTERM, SIGHUP).

Each sample runs the command twice (cold, then warm) with private WARP_CACHE_PATH,
CUDA_CACHE_PATH and TMPDIR under a temp dir named warp-ct-probe-*, removed on exit; your
own Warp and CUDA caches are never used. A timeout or an interruption stops the command and
everything it started, including processes that left its session (setsid); on Linux so does
the probe's own death, even by SIGKILL, and the next run removes what it left in the temp
dir. Of the command's output, the last MiB of each stream is kept while it runs. Example:
  warp-ct probe measure --samples 3 --json base.json --html base.html -- python train.py"""

_LEVERS_EPILOG = """levers: backward (enable_backward=False for the process), backward:MODULE (one module
alone; tried for each module that built backward code when several did), precompiled-headers,
max-unroll, lineinfo, release-mode, optimization-level, fast-math (changes numerics), or any
module option as OPTION=VALUE. Levers that do not apply to the measured program are listed as
not applicable and not run.

Each lever is judged like `probe compare`: with fewer than 3 samples a change smaller than
a fifth of the baseline (or the spread the runs showed) is inconclusive, and only a measured
improvement gets a line to write.

exit codes: 0 ledger written, 2 usage/error, 3 the command failed in every baseline sample,
4 timeout, 5 Warp not importable by the command, 126/127 command not executable/not found,
130 interrupted (Ctrl-C, SIGTERM, SIGHUP). Example:
  warp-ct probe levers --samples 3 --json levers.json --html levers.html -- python train.py"""

_COMPARE_EPILOG = """exit codes: 0 improved, 1 regression, 3 inconclusive
(|Δ| <= max(1% of baseline median, 2 x baseline MAD) of compile elapsed; with fewer than
3 samples on either side, at least a fifth of the baseline or the spread the runs showed), 4 invalid
(the launch topology changed: order, kernels, dims, dtypes, devices, block_dims, adjoint,
counts), 2 unreadable report or not a `probe measure --json` report."""

_CACHE_KEY_EPILOG = """exit codes: 0 key printed, 2 error, 5 Warp missing or older than 1.19.
Pass flags with '=': --cpu-compiler-flags=-march=native (an empty value selects a generic
CPU target)."""


def register(subparsers: Any) -> None:
    """Add ``probe {measure,levers,compare}`` and ``cache-key`` to an argparse subparsers."""
    probe = subparsers.add_parser(
        "probe",
        help="measure Warp compile cost of a command in isolated caches",
        description="Measure cold and warm Warp compile cost in isolated caches, and compare measurements.",
    )
    probe_commands = probe.add_subparsers(dest="probe_command", metavar="{measure,levers,compare}")
    probe_commands.required = True

    measure = probe_commands.add_parser(
        "measure",
        help="run a command cold and warm in private caches and report module builds",
        epilog=_MEASURE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    measure.add_argument("--samples", type=_positive_count, default=3, help="fresh caches to measure (default 3; >= 3 to decide)")
    measure.add_argument("--json", metavar="FILE", help="write the JSON report (schema_version 2); '-' for stdout")
    measure.add_argument("--html", metavar="FILE", help="write a self-contained HTML page with a build timeline")
    measure.add_argument("--timeout", type=_positive_seconds, metavar="S", help="seconds allowed per run (cold or warm)")
    measure.add_argument("--cwd", metavar="DIR", help="working directory of the command")
    measure.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    measure.add_argument(
        "--cuda-arch", metavar="A[,B]", type=_cuda_archs, default=(),
        help="also compile every loaded module for these CUDA archs (e.g. 86,90) through NVRTC, at each "
             "block_dim its launches asked for: CUDA compile time and PTX/cubin size without a GPU "
             "(one more run per sample, in no wall)",
    )  # fmt: skip
    measure.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    measure.set_defaults(handler=_measure_command)

    levers = probe_commands.add_parser(
        "levers",
        help="measure the command as it is, then with each compile option change alone (a ledger)",
        epilog=_LEVERS_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    levers.add_argument("--samples", type=_positive_count, default=3, help="fresh caches per lever and for the baseline (default 3)")
    levers.add_argument("--only", metavar="NAME,...", action="append", help="only these levers (comma-separated)")
    levers.add_argument("--json", metavar="FILE", help="write the ledger as JSON (schema_version 2); '-' for stdout")
    levers.add_argument("--html", metavar="FILE", help="write an HTML page: the ledger as bars beside the baseline timeline")
    levers.add_argument("--timeout", type=_positive_seconds, metavar="S", help="seconds allowed per run (cold or warm)")
    levers.add_argument("--cwd", metavar="DIR", help="working directory of the command")
    levers.add_argument("--quiet", action="store_true", help="no plan or progress lines on stderr")
    levers.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    levers.set_defaults(handler=_levers_command)

    compare = probe_commands.add_parser(
        "compare",
        help="compare two probe reports (improved / regression / inconclusive / invalid)",
        epilog=_COMPARE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    compare.add_argument("base", metavar="BASE.json")
    compare.add_argument("cand", metavar="CAND.json")
    compare.add_argument("--json", metavar="FILE", help="also write the comparison as JSON ('-' for stdout)")
    compare.set_defaults(handler=_compare_command)

    cache_key = subparsers.add_parser(
        "cache-key",
        help="print a key for CI kernel-cache archives (wp.get_cpu_kernel_cache_key)",
        epilog=_CACHE_KEY_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cache_key.add_argument("files", nargs="*", metavar="FILES", help="dependency/source files or dirs to hash into the key")
    cache_key.add_argument("--cpu-compiler-flags", default=None, help="CPU flags of the target (default: Warp's)")
    cache_key.add_argument("--python", default=None, help="interpreter whose Warp to ask (default: this one)")
    cache_key.add_argument("--allow-fallback", action="store_true", help="coarser key on Warp < 1.19 instead of an error")
    cache_key.set_defaults(handler=_cache_key_command)


def _positive_count(text: str) -> int:
    """argparse type of ``--samples``: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value


def _cuda_archs(text: str) -> tuple[int, ...]:
    """argparse type of ``--cuda-arch``: compute capabilities without the dot (86,90)."""
    from warp_ct.probe.cuda import parse_cuda_archs

    try:
        archs = parse_cuda_archs(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if not archs:
        raise argparse.ArgumentTypeError(f"expected CUDA archs like 86,90, got {text!r}")
    return archs


def _positive_seconds(text: str) -> float:
    """argparse type of ``--timeout``: a finite number of seconds above 0 (``nan`` and
    ``inf`` parse as floats, and ``nan`` compares false to everything: it would mean no limit)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(
            f"expected a number of seconds above 0, got {text!r} (leave --timeout out for no limit)"
        )
    return value


def _fail(error: ProbeError | str, code: int | None = None) -> int:
    message = str(error)
    _say(f"warp-ct: error: {message}")
    if code is None:
        code = error.exit_code if isinstance(error, ProbeError) else EXIT_USAGE
    return code


def _say(message: str) -> None:
    """A line on stderr; a terminal that was closed (SIGHUP) must not turn into a traceback."""
    try:
        print(message, file=sys.stderr, flush=True)
    except OSError:
        pass


# SIGINT (Ctrl-C), SIGTERM (kill, a service stop) and SIGHUP (the terminal was closed).
_STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextlib.contextmanager
def _signals_as_interrupt() -> Iterator[list[str]]:
    """Turn the first stop signal into KeyboardInterrupt so cleanup (stop the child and what
    it started, remove temp dirs) runs; later ones are ignored so the cleanup can finish.

    Yields a list that receives the signal's name. A signal ignored when we started (``nohup``,
    a background job's SIGINT) stays ignored.
    """
    received: list[str] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    def interrupt(signum: int, _frame: object) -> None:
        if received:
            return
        received.append(signal.Signals(signum).name)
        raise KeyboardInterrupt

    previous = {}
    for sig in _STOP_SIGNALS:
        current = signal.getsignal(sig)
        if current is not signal.SIG_IGN and current is not None:  # None: a handler not set from Python
            previous[sig] = signal.signal(sig, interrupt)
    try:
        yield received
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _write_output(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def _unwritable_output(path: str | None) -> str | None:
    """Why the report cannot be written to ``path`` (None when it can, or for stdout)."""
    if path is None or path == "-":
        return None
    if os.path.isdir(path):
        return "it is a directory"
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"its folder {folder} does not exist"
    if os.path.exists(path):
        return None if os.access(path, os.W_OK) else "the file is not writable"
    return None if os.access(folder, os.W_OK | os.X_OK) else f"its folder {folder} is not writable"


def _measure_command(args: argparse.Namespace) -> int:
    from warp_ct.probe.html import write_html
    from warp_ct.probe.measure import run_measure
    from warp_ct.probe.text import render_text

    def run(command: list[str], progress, announce):
        return run_measure(command, cwd=args.cwd, samples=args.samples, timeout=args.timeout, progress=progress,
                           cuda_archs=args.cuda_arch)  # fmt: skip

    return _run_probe(args, "measure", run, write_html, render_text)


def _levers_command(args: argparse.Namespace) -> int:
    from warp_ct.probe.html import write_levers_html
    from warp_ct.probe.levers import render_ledger_text, run_levers

    def run(command: list[str], progress, announce):
        return run_levers(
            command, cwd=args.cwd, samples=args.samples, only=args.only, timeout=args.timeout,
            progress=progress, announce=announce,
        )  # fmt: skip

    return _run_probe(args, "levers", run, write_levers_html, render_ledger_text)


def _run_probe(args: argparse.Namespace, verb: str, run, write_html, render) -> int:
    """What ``measure`` and ``levers`` share: the command after ``--``, progress on stderr,
    Ctrl-C, SIGTERM and SIGHUP as a clean interruption, then JSON / HTML / the text report."""
    from warp_ct.probe.isolation import remove_own_workspaces

    command = list(args.command)
    if command[:1] == ["--"]:
        command = command[1:]
    if not command:
        return _fail(f"no command given: warp-ct probe {verb} [options] -- CMD ...")
    for option, path in (("--json", args.json), ("--html", args.html)):
        problem = _unwritable_output(path)
        if problem:  # found now, not after every sample has run
            return _fail(f"cannot write {option} {path}: {problem}")

    def progress(message: str, fraction: float) -> None:
        if not args.quiet:
            _say(f"[{fraction * 100:3.0f}%] {message}")

    def announce(message: str) -> None:
        if not args.quiet:
            _say(message)

    received: list[str] = []
    try:
        with _signals_as_interrupt() as received:
            try:
                result = run(command, progress, announce)
            finally:
                remove_own_workspaces()
    except ProbeCancelled as error:
        return _fail(f"{error} ({received[0]})" if received else error, error.exit_code)
    except AllSamplesFailed as error:
        # What the runs loaded before they failed is still measured: the JSON keeps it (the
        # samples say ok: false), the text report and the HTML need a run that succeeded.
        if verb == "measure" and args.json and error.report is not None:
            try:
                _write_output(args.json, json.dumps(error.report.to_json_dict(), indent=2) + "\n")
            except (OSError, ValueError, TypeError) as write_error:
                _say(f"warp-ct: cannot write --json {args.json}: {write_error}")
        return _fail(error)
    except ProbeError as error:
        return _fail(error)
    except KeyboardInterrupt:
        return _fail(f"interrupted ({received[0]})" if received else "interrupted", EXIT_INTERRUPTED)

    try:
        if args.json:
            _write_output(args.json, json.dumps(result.to_json_dict(), indent=2) + "\n")
        if args.html:
            write_html(result, args.html)
    except OSError as error:
        return _fail(f"cannot write output: {error}")
    if args.json != "-":
        sys.stdout.write(render(result))
    return 0


def _compare_command(args: argparse.Namespace) -> int:
    from warp_ct.probe.compare import compare_reports, render_comparison
    from warp_ct.probe.report import load_report

    try:
        comparison = compare_reports(load_report(args.base), load_report(args.cand))
    except ProbeError as error:
        return _fail(error)
    if args.json:
        try:
            _write_output(args.json, json.dumps(comparison.to_dict(), indent=2) + "\n")
        except OSError as error:
            return _fail(f"cannot write output: {error}")
    if args.json != "-":
        sys.stdout.write(render_comparison(comparison))
    return comparison.exit_code


def _cache_key_command(args: argparse.Namespace) -> int:
    from warp_ct.probe.cache_key import cache_key

    try:
        key = cache_key(
            python=args.python,
            cpu_compiler_flags=args.cpu_compiler_flags,
            files=args.files,
            allow_fallback=args.allow_fallback,
        )
    except ProbeError as error:
        return _fail(error)
    print(key)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """A stand-alone parser (``python -m warp_ct.probe``) until/besides ``warp_ct.cli``."""
    parser = argparse.ArgumentParser(prog="warp-ct", description="warp-ct probe commands")
    register(parser.add_subparsers(dest="command_name", metavar="{probe,cache-key}", required=True))
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.handler(args))
