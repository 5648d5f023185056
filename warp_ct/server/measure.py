"""``warp-ct.measure`` and ``warp-ct.measureLevers``: run the probe with ``$/progress``,
cancellable, on its own thread; then show the measured evidence in the editor
(diagnostics, code lenses, a summary). The report's measured findings are published as
diagnostics with source ``warp-ct (measured)`` next to the static ones, and kept (like the
rest of the evidence) until the next measurement.

``warp-ct.measure`` arguments: ``[argv: string[] | null, cwd: string | null, samples: number | null,
timeout: number | null]``, or one object with those keys (``argv`` null -> the ``probeCommand``
setting; ``samples`` 1 to :data:`MAX_SAMPLES`; ``timeout``, seconds allowed per run, up to a
day; null: no limit). Arguments out of bounds are refused with InvalidParams. The ``cudaArch``
setting (``"86,90"``) adds the probe's ``--cuda-arch``. Result::

    {"ok": bool, "summary": str, "coldWallS": float|null, "warmWallS": float|null,
     "jsonPath": str|null, "htmlPath": str|null, "summaryPath": str|null,
     "diagnoses": [str], "cancelled": bool, "exitCode": int|null}

``warp-ct.measureLevers`` arguments: ``[argv, cwd, samples, only: string | string[] | null, timeout]``
(or one object with those keys). Result: ``ok``, ``summary``, ``jsonPath``, ``htmlPath``,
``summaryPath``, ``cancelled``, ``exitCode`` as above, and ``levers``: one object per
ledger row (``name``, ``status``, ``verdict``, ``relative``, ``unsafe``, ``changesNumerics``,
``line``, ``where``).

Reports are written to the project's cache directory (``.warp_ct_cache/measurements/`` in
the workspace folder, or ``$WARP_CT_CACHE_DIR/measurements/``), keeping the newest
:data:`KEEP_MEASUREMENTS`; nothing is left in the system temp dir.

This module does not import :mod:`warp_ct.server.server` (which registers these commands):
``ls`` is that module's ``WarpCtServer``.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import json
import os
import re
import shutil
import stat
import threading
import uuid
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import from_fs_path

from warp_ct.server.folders import normalize_path
from warp_ct.server.lenses import build_findings, build_marks
from warp_ct.server.settings import MAX_SAMPLES

# warp_ct.server.server.WarpCtServer: not imported, that module imports this one.
Server = Any

CACHE_DIR_ENV = "WARP_CT_CACHE_DIR"  # as `warp-ct lint`
PROJECT_CACHE_DIR = ".warp_ct_cache"
KEEP_MEASUREMENTS = 10

_executor: ThreadPoolExecutor | None = None


def _measure_executor() -> ThreadPoolExecutor:
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="warp-ct-measure")
    return _executor


# The probe stops a command within ~2 s of a cancel (SIGTERM, then SIGKILL after its grace):
# this leaves room for a command that is slow to die, and still lets the editor close.
SHUTDOWN_WAIT_S = 15.0
# Seconds a run (cold or warm) may take at most: a day is past any real compile; more is a mistake.
MAX_TIMEOUT_S = 24 * 3600.0
MEASURE_ARGUMENTS = ("argv", "cwd", "samples", "timeout")
LEVERS_ARGUMENTS = ("argv", "cwd", "samples", "only", "timeout")


@dataclass
class MeasureRun:
    token: str
    cancel: threading.Event = field(default_factory=threading.Event)
    finished: asyncio.Event = field(default_factory=asyncio.Event)  # its request has its answer


class InvalidArguments(ValueError):
    pass


@dataclass(frozen=True)
class MeasureArguments:
    argv: list[str]
    cwd: str | None
    samples: int
    timeout_s: float | None  # per run (cold or warm); None: no limit
    only: str | list[str] | None = None  # measureLevers: the levers to try


def parse_arguments(
    args: list[Any], names: tuple[str, ...], default_argv: tuple[str, ...], default_cwd: str | None, default_samples: int
) -> MeasureArguments:
    """The command's arguments, given in the order of ``names`` or as one object with those
    keys, each checked (bounds included); raises InvalidArguments with a one-line reason."""
    given = _named_arguments(args, names)
    argv = given["argv"]
    if argv is None:
        argv = list(default_argv)
    elif isinstance(argv, str):
        import shlex

        try:
            argv = shlex.split(argv)
        except ValueError as exc:  # an unbalanced quote
            raise InvalidArguments(f"argv cannot be split into words ({exc}): {_shown(argv)}") from None
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        raise InvalidArguments(f"argv must be a list of strings, got {_shown(argv)}")
    if any("\0" in a for a in argv):
        raise InvalidArguments(f"argv holds a NUL character, which no command line can: {_shown(argv)}")
    cwd = given["cwd"]
    if cwd is not None and not isinstance(cwd, str):
        raise InvalidArguments(f"cwd must be a string or null, got {_shown(cwd)}")
    if cwd is not None and "\0" in cwd:
        raise InvalidArguments(f"cwd holds a NUL character, which no path can: {_shown(cwd)}")
    samples = default_samples if given["samples"] is None else given["samples"]
    if not _whole_number(samples) or not 1 <= samples <= MAX_SAMPLES:
        raise InvalidArguments(f"samples must be a whole number from 1 to {MAX_SAMPLES}, got {_shown(samples)}")
    timeout_s = given["timeout"]
    if timeout_s is not None and (
        isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or not 0 < timeout_s <= MAX_TIMEOUT_S
    ):  # NaN fails every comparison, so it is refused here too
        raise InvalidArguments(
            f"timeout must be a number of seconds above 0 and at most {MAX_TIMEOUT_S:g} (a day), or null, got {_shown(timeout_s)}"
        )
    only = given.get("only")
    if only is not None and not (isinstance(only, str) or (isinstance(only, list) and all(isinstance(o, str) for o in only))):
        raise InvalidArguments(f"only must be a string, a list of strings or null, got {_shown(only)}")
    return MeasureArguments(argv, cwd or default_cwd, int(samples), None if timeout_s is None else float(timeout_s), only)


def _named_arguments(args: list[Any], names: tuple[str, ...]) -> dict[str, Any]:
    if len(args) == 1 and isinstance(args[0], dict):  # {"argv": [...], "cwd": ..., "samples": ...}
        unknown = [key for key in args[0] if key not in names]
        if unknown:
            raise InvalidArguments(f"unknown argument {_shown(unknown[0])}; the arguments are {', '.join(names)}")
        return {name: args[0].get(name) for name in names}
    if len(args) > len(names):
        raise InvalidArguments(f"expected at most {len(names)} arguments ({', '.join(names)}), got {len(args)}")
    return dict(zip(names, [*args, *[None] * (len(names) - len(args))]))


def _whole_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _shown(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


async def stop_measurement(ls: Server, reason: str) -> None:
    """Cancel the running measurement, if any, and wait (bounded) until its request has its
    answer: by then the probe has stopped the measured command and removed its temp dir."""
    run = ls.measure_task
    if run is None:
        return
    ls.log(f"{reason}: cancelling the running measurement")
    run.cancel.set()
    try:
        await asyncio.wait_for(run.finished.wait(), SHUTDOWN_WAIT_S)
    except asyncio.TimeoutError:
        ls.log(f"the measurement did not stop within {SHUTDOWN_WAIT_S:g} s; going on without it", types.MessageType.Warning)


def _failure(summary: str, *, cancelled: bool = False, exit_code: int | None = None) -> dict[str, Any]:
    return {
        "ok": False, "summary": summary, "coldWallS": None, "warmWallS": None, "jsonPath": None,
        "htmlPath": None, "summaryPath": None, "diagnoses": [], "cancelled": cancelled, "exitCode": exit_code,
    }  # fmt: skip


async def measure_command(ls: Server, args: list[Any]) -> dict[str, Any]:
    roots = ls.workspace_roots()
    default_cwd = str(roots[0]) if roots else None
    try:
        given = parse_arguments(args, MEASURE_ARGUMENTS, ls.settings.probe_command, default_cwd, ls.settings.samples)
    except InvalidArguments as exc:
        ls.log(f"warp-ct.measure: {exc}", types.MessageType.Error)
        raise JsonRpcInvalidParams(f"warp-ct.measure: {exc}") from None
    try:
        from warp_ct.probe.measure import run_measure
    except ImportError as exc:
        return _failure(f"The probe is not available in this installation: {exc}")

    def work(run: MeasureRun, on_progress: Callable[[str, float], None]) -> Any:
        return run_measure(given.argv, cwd=given.cwd, samples=given.samples, timeout=given.timeout_s,
                           progress=on_progress, cancel=run.cancel, cuda_archs=ls.settings.cuda_archs)  # fmt: skip

    samples = given.samples
    ls.log(f"measuring `{' '.join(given.argv)}` ({samples} sample{'s' if samples != 1 else ''}) in {given.cwd or os.getcwd()}")
    return await _run_probe(ls, given.argv, "Measuring compile time", work, lambda report: _after_measure(ls, report, given.cwd))


async def measure_levers_command(ls: Server, args: list[Any]) -> dict[str, Any]:
    roots = ls.workspace_roots()
    default_cwd = str(roots[0]) if roots else None
    try:
        given = parse_arguments(args, LEVERS_ARGUMENTS, ls.settings.probe_command, default_cwd, ls.settings.samples)
    except InvalidArguments as exc:
        ls.log(f"warp-ct.measureLevers: {exc}", types.MessageType.Error)
        raise JsonRpcInvalidParams(f"warp-ct.measureLevers: {exc}") from None
    argv, cwd, samples, only = given.argv, given.cwd, given.samples, given.only
    try:
        from warp_ct.probe.levers import parse_only, run_levers
        from warp_ct.probe.errors import ProbeError
    except ImportError as exc:
        return _failure(f"The probe is not available in this installation: {exc}")
    try:
        parse_only(only)
    except ProbeError as exc:
        return _failure(f"{exc}.", exit_code=exc.exit_code)

    def work(run: MeasureRun, on_progress: Callable[[str, float], None]) -> Any:
        return run_levers(argv, cwd=cwd, samples=samples, only=only, timeout=given.timeout_s, progress=on_progress,
                          announce=lambda message: ls.log(f"levers: {message}"), cancel=run.cancel)  # fmt: skip

    ls.log(f"measuring option levers of `{' '.join(argv)}` ({samples} sample{'s' if samples != 1 else ''} each)")
    return await _run_probe(ls, argv, "Measuring option levers", work, lambda ledger: _after_levers(ls, ledger, cwd))


async def _run_probe(
    ls: Server,
    argv: list[str],
    title: str,
    work: Callable[[MeasureRun, Callable[[str, float], None]], Any],
    after: Callable[[Any], Awaitable[dict[str, Any]]],
) -> dict[str, Any]:
    """Run ``work`` on the measure thread with a cancellable ``$/progress``, then ``after``."""
    if not argv:
        return _failure("No command to measure: pass one (argv) or set the warpCt.probeCommand setting, "
                        'e.g. ["python", "train.py"].')  # fmt: skip
    if ls.measure_task is not None:
        return _failure("A measurement is already running; cancel it or wait for it to finish.")
    from warp_ct.probe.errors import ProbeCancelled, ProbeError

    run = MeasureRun(token=f"warp-ct-measure-{uuid.uuid4().hex[:12]}")
    ls.measure_task = run
    progress = ls.capability("window.work_done_progress", False)
    loop = asyncio.get_running_loop()
    try:
        if progress:
            try:
                await ls.work_done_progress.create_async(run.token)
            except Exception as exc:  # noqa: BLE001 - measure without a progress bar
                ls.log(f"could not create a progress bar: {exc}", types.MessageType.Warning)
                progress = False
        if progress:
            ls.work_done_progress.begin(
                run.token,
                types.WorkDoneProgressBegin(title=title, message=" ".join(argv), cancellable=True, percentage=0),
            )

        def on_progress(message: str, fraction: float) -> None:
            if progress:
                value = types.WorkDoneProgressReport(message=message, percentage=max(0, min(100, int(fraction * 100))), cancellable=True)
                ls.call_soon(ls.work_done_progress.report, run.token, value)
            ls.log(f"measure: {message}")

        end_message = "done"
        try:
            result = await asyncio.shield(loop.run_in_executor(_measure_executor(), lambda: work(run, on_progress)))
        except asyncio.CancelledError:  # $/cancelRequest on the command: stop the child too
            run.cancel.set()
            end_message = "cancelled"
            raise
        except ProbeCancelled:
            end_message = "cancelled"
            return _failure("Measurement cancelled.", cancelled=True, exit_code=130)
        except ProbeError as exc:
            end_message = "failed"
            ls.log(f"measure failed: {exc}", types.MessageType.Error)
            return _failure(f"The measurement failed: {exc}", exit_code=getattr(exc, "exit_code", None))
        finally:
            if progress:
                ls.work_done_progress.end(run.token, types.WorkDoneProgressEnd(message=end_message))
        try:
            return await after(result)
        except OSError as exc:  # a read-only workspace, a full disk, a planted link
            ls.log(f"measure: cannot write the report: {exc}", types.MessageType.Error)
            return _failure(f"The measurement ran, but its report could not be written: {exc}")
    finally:
        ls.measure_task = None
        run.finished.set()


def reports_dir(ls: Server, cwd: str | None, kind: str) -> Path:
    """A new directory for one measurement's files in the project's cache (bounded history).

    ``$WARP_CT_CACHE_DIR`` (as for ``warp-ct lint``), else ``.warp_ct_cache`` in the workspace
    folder that holds ``cwd`` (else the first folder, else ``cwd``), else, or where the
    workspace's cache folder is a link, the user's cache directory. Only the newest
    :data:`KEEP_MEASUREMENTS` measurements are kept.
    """
    if os.environ.get(CACHE_DIR_ENV):
        cache = Path(os.environ[CACHE_DIR_ENV])
    else:
        roots = [Path(normalize_path(str(r))) for r in ls.workspace_roots()]
        here = Path(normalize_path(cwd)) if cwd else None
        base = next((r for r in roots if here is not None and (here == r or r in here.parents)), None)
        base = base or (roots[0] if roots else here)
        cache = base / PROJECT_CACHE_DIR if base is not None else _user_cache()
        if base is not None and _is_link(cache):
            # A cloned repository can commit ``.warp_ct_cache -> ~/somewhere``: the history
            # is pruned, so it must never live in a folder the repository points at.
            cache = _user_cache()
    _ensure_cache_root(cache)
    history = cache / "measurements"
    if _is_link(history):
        raise OSError(f"{history} is a link: measurements are not written through it")
    history.mkdir(exist_ok=True)
    # Names sort by creation time (microseconds), so the oldest are the first pruned.
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    directory = history / f"{stamp}-{kind}-{uuid.uuid4().hex[:6]}"
    directory.mkdir()
    _prune(history, keep=KEEP_MEASUREMENTS, spare=directory)
    return directory


def _user_cache() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "warp-ct" / PROJECT_CACHE_DIR


def _is_link(path: Path) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def _ensure_cache_root(cache: Path) -> None:
    """The cache directory, marked as one for git and backup tools (like the lint cache)."""
    cache.mkdir(parents=True, exist_ok=True)
    for name, text in ((".gitignore", "# Created by warp-ct: this directory is a cache.\n*\n"),
                       ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n# warp-ct cache\n")):  # fmt: skip
        target = cache / name
        if not os.path.lexists(target):  # never written through a planted link
            try:
                target.write_text(text, encoding="utf-8")
            except OSError:
                pass


# A measurement folder as ``reports_dir`` names it: nothing else in the history is removed.
_MEASUREMENT_NAME = re.compile(r"\d{8}T\d{12}Z-[a-z]+-[0-9a-f]{6}")


def _prune(history: Path, keep: int, spare: Path) -> None:
    """Remove all but the newest ``keep`` measurements (never ``spare``, the one just made).
    Only real folders named as measurements: a link or anything else placed there stays."""
    entries = []
    for entry in os.scandir(history):
        if (entry.is_dir(follow_symlinks=False) and _MEASUREMENT_NAME.fullmatch(entry.name)
                and entry.path != os.fspath(spare)):  # fmt: skip
            entries.append(Path(entry.path))
    entries.sort(key=lambda p: p.name)
    for old in entries[: max(0, len(entries) - (keep - 1))]:
        shutil.rmtree(old, ignore_errors=True)


def _summary_markdown(report: Any, json_path: str, html_path: str | None, unexplained: list[str],
                      paired: dict | None = None) -> str:  # fmt: skip
    """The measurement summary; ``paired``: the measured findings static findings stand for, and
    the line printed for each pair (``confirm.paired_lines``): one line per problem."""
    from warp_ct.probe.text import render_text

    analysis = report.analysis
    lines = ["# warp-ct: compile-time measurement", "", f"Command: `{' '.join(report.command)}`", ""]
    problems = [d for d in analysis.diagnoses if d.problem]
    if problems:
        lines.append("## Problems measured")
        for d in problems:
            lines += [f"- **{d.title}** — {d.message}"] + [f"  - {e}" for e in d.evidence[:8]]
        lines.append("")
    if unexplained:
        lines += ["## Measured problems no static rule explains", *[f"- {u}" for u in unexplained], ""]
    lines += ["## Report", "", "```text", render_text(report, paired).rstrip(), "```", "", f"JSON: `{json_path}`"]
    if html_path:
        lines.append(f"HTML (timeline): `{html_path}`")
    return "\n".join(lines) + "\n"


async def _after_measure(ls: Server, report: Any, cwd: str | None) -> dict[str, Any]:
    analysis = report.analysis
    out_dir = reports_dir(ls, cwd, "measure")
    json_path = out_dir / "report.json"
    json_path.write_text(json.dumps(report.to_json_dict(), indent=2), encoding="utf-8")
    html_path: Path | None = out_dir / "report.html"
    try:
        from warp_ct.probe.html import write_html

        write_html(report, html_path)
    except Exception as exc:  # noqa: BLE001
        ls.log_error("writing the HTML report", exc)
        html_path = None

    unexplained, paired = await _show_measured(ls, report, None)
    summary_path = out_dir / "summary.md"
    summary_path.write_text(_summary_markdown(report, str(json_path), str(html_path) if html_path else None, unexplained, paired),
                            encoding="utf-8")  # fmt: skip
    ls.measured.summary_path = str(summary_path)
    ls.measured.html_path = str(html_path) if html_path else None
    await _open_summary(ls, summary_path)

    summary = analysis.summary
    cold = summary["cold_wall_s"].median if "cold_wall_s" in summary else None
    warm = summary["warm_wall_s"].median if "warm_wall_s" in summary else None
    problems = [d for d in analysis.diagnoses if d.problem]
    text = f"cold {cold:.2f} s, warm {warm:.2f} s" if cold is not None and warm is not None else "measured"
    text += f"; {len(analysis.modules)} module{'s' if len(analysis.modules) != 1 else ''}"
    text += (f"; {len(problems)} problem{'s' if len(problems) != 1 else ''}: " + "; ".join(d.title for d in problems)) if problems else "; no structural churn found"
    ls.log(f"measure done: {text}")
    return {
        "ok": True,
        "summary": text,
        "coldWallS": cold,
        "warmWallS": warm,
        "jsonPath": str(json_path),
        "htmlPath": str(html_path) if html_path else None,
        "summaryPath": str(summary_path),
        "diagnoses": [f"{d.title}: {d.message}" for d in analysis.diagnoses],
        "unexplained": unexplained,
        "cancelled": False,
        "exitCode": 0,
    }


async def _show_measured(ls: Server, report: Any, ledger: Any) -> tuple[list[str], dict]:
    """Make ``report`` (and a levers ``ledger``) the editor's evidence: marks, lenses, diagnostics.
    Returns the measured problems no finding explains and the paired lines (see
    :func:`_publish_evidence`)."""
    try:
        from warp_ct.confirm import explained_by_measured

        explained = explained_by_measured(report)
    except Exception as exc:  # noqa: BLE001 - then the marks say every measured problem
        ls.log_error("joining the measured problems with the measured findings", exc)
        explained = frozenset()
    marks = build_marks(report, explained)
    try:
        findings = build_findings(report)
    except Exception as exc:  # noqa: BLE001 - the measured findings are a bonus: keep the rest
        ls.log_error("reading the measured findings", exc)
        findings = {}
    ls.measured.report = report
    ls.measured.ledger = ledger
    ls.measured.marks = marks
    ls.measured.findings = findings
    # Re-lint (on the analysis worker) every file the measurement points at, attaching evidence.
    unexplained: list[str] = []
    paired: dict = {}
    try:
        unexplained, paired = await asyncio.wrap_future(ls.worker.submit(lambda: _publish_evidence(ls, report, marks)))
    except Exception as exc:  # noqa: BLE001
        ls.log_error("publishing measured evidence", exc)
    ls.relint_all()
    if ls.capability("workspace.code_lens.refresh_support", False):
        try:
            ls.workspace_code_lens_refresh(None)
        except Exception as exc:  # noqa: BLE001
            ls.log(f"codeLens refresh failed: {exc}", types.MessageType.Warning)
    return unexplained, paired


async def _open_summary(ls: Server, summary_path: Path) -> None:
    """Open the markdown summary, unless the client shows the HTML reports itself."""
    if ls.capability("window.show_document.support", False) and not ls.client_shows_reports():
        try:
            await ls.window_show_document_async(
                types.ShowDocumentParams(uri=from_fs_path(str(summary_path)), external=False, take_focus=False)
            )
        except Exception as exc:  # noqa: BLE001
            ls.log(f"window/showDocument failed: {exc}", types.MessageType.Warning)


async def _after_levers(ls: Server, ledger: Any, cwd: str | None) -> dict[str, Any]:
    from warp_ct.probe.levers import render_ledger_text

    out_dir = reports_dir(ls, cwd, "levers")
    json_path = out_dir / "levers.json"
    json_path.write_text(json.dumps(ledger.to_json_dict(), indent=2), encoding="utf-8")
    html_path: Path | None = out_dir / "levers.html"
    try:
        from warp_ct.probe.html import write_levers_html

        write_levers_html(ledger, html_path)
    except Exception as exc:  # noqa: BLE001
        ls.log_error("writing the HTML ledger", exc)
        html_path = None
    await _show_measured(ls, ledger.baseline, ledger)
    summary_path = out_dir / "summary.md"
    lines = ["# warp-ct: option levers", "", f"Command: `{' '.join(ledger.command)}`", "",
             "```text", render_ledger_text(ledger).rstrip(), "```", "", f"JSON: `{json_path}`"]  # fmt: skip
    if html_path:
        lines.append(f"HTML (ledger and timeline): `{html_path}`")
    summary_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ls.measured.summary_path = str(summary_path)
    await _open_summary(ls, summary_path)

    measured = [r for r in ledger.results if r.status == "measured"]
    improved = [r for r in measured if r.verdict == "improved"]
    text = f"{len(measured)} lever{'s' if len(measured) != 1 else ''} measured"
    if improved:
        text += "; improved: " + ", ".join(
            f"{r.name} {r.relative * 100:+.0f}%" + (" (unsafe here)" if r.plan.unsafe else "") for r in improved
        )
    else:
        text += "; none improved compile time beyond noise"
    ls.log(f"levers done: {text}")
    return {
        "ok": True,
        "summary": text,
        "jsonPath": str(json_path),
        "htmlPath": str(html_path) if html_path else None,
        "summaryPath": str(summary_path),
        "levers": [
            {
                "name": r.name, "status": r.status, "verdict": r.verdict, "relative": r.relative,
                "unsafe": r.plan.unsafe is not None, "changesNumerics": r.plan.changes_numerics,
                "notApplicable": r.plan.not_applicable, "line": r.plan.line, "where": r.plan.where,
            }  # fmt: skip
            for r in ledger.results
        ],
        "cancelled": False,
        "exitCode": 0,
    }


def _publish_evidence(ls: Server, report: Any, marks: dict[str, list]) -> tuple[list[str], dict]:
    """Worker thread: lint every measured file in the workspace (open documents are re-linted by
    the caller) and publish its findings with evidence plus the measured diagnostics. Returns the
    measured problems no finding explains, and for the summary the line of each static finding
    that stands for measured ones (``confirm.paired_lines``)."""
    from dataclasses import replace

    from warp_ct.analyzer.engine import read_source

    unexplained: list[str] = []
    paired: dict = {}
    ls.measured.twinned_elsewhere = frozenset()
    open_paths = {normalize_path(d.path) for d in list(ls.docs.values())}
    roots = [Path(normalize_path(str(r))) for r in ls.workspace_roots()]
    closed = []  # (path, text, static findings) of the measured files no editor has open
    for path in sorted(ls.measured.paths() | set(marks)):
        if path in open_paths or not os.path.isfile(path):
            continue
        if roots and not any(Path(path) == r or r in Path(path).parents for r in roots):
            continue  # e.g. kernels inside site-packages
        source = read_source(path)
        folder = ls.folders.folder_for(path)
        folder.load_project()
        closed.append((path, source.text or "", folder.linter.lint_source_file(source).findings))
    all_findings = [f for _path, _text, found in closed for f in found]
    try:
        from warp_ct.confirm import join, paired_lines

        for doc in list(ls.docs.values()):
            folder = ls.folders.folder_for(doc.path)
            all_findings.extend(folder.linter.lint_text(doc.path, doc.text).findings)
        if report.cwd:  # the summary's paths as the report's (relative to the measured command's folder)
            all_findings = [replace(f, path=_relative(f.path, report.cwd)) for f in all_findings]
        joined = join(all_findings, report)
        unexplained = [str(u) for u in joined.unexplained]
        paired = paired_lines(joined)
        # a pair across two files (a factory's def and the call that rebuilt it): the static
        # finding carries the figures, the measured one in the other file is not shown again
        ls.measured.twinned_elsewhere = joined.twinned_across_files
    except ImportError:
        ls.log("warp_ct.confirm is not available: findings are not marked confirmed", types.MessageType.Warning)
    for path, text, found in closed:
        _found, diagnostics = ls.file_diagnostics(path, text, found)
        ls.call_soon(ls._publish_closed, from_fs_path(path), diagnostics)
    return unexplained, paired


def _relative(path: str, base: str) -> str:
    try:
        relative = os.path.relpath(path, base)
    except ValueError:  # another drive
        return path
    return path if relative.startswith("..") else relative
