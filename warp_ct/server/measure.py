"""``warp-ct.measure``: run the probe with ``$/progress``, cancellable, on its own thread;
then show the measured evidence in the editor (diagnostics, code lenses, a summary).

Arguments: ``[argv: string[] | null, cwd: string | null, samples: number | null]``
(``argv`` null -> the ``probeCommand`` setting). Result::

    {"ok": bool, "summary": str, "coldWallS": float|null, "warmWallS": float|null,
     "jsonPath": str|null, "htmlPath": str|null, "summaryPath": str|null,
     "diagnoses": [str], "cancelled": bool, "exitCode": int|null}
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import from_fs_path

from warp_ct.server.folders import normalize_path
from warp_ct.server.lenses import build_marks
from warp_ct.server.positions import Converter

if TYPE_CHECKING:
    from warp_ct.server.server import WarpCtServer

_executor: ThreadPoolExecutor | None = None


def _measure_executor() -> ThreadPoolExecutor:
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="warp-ct-measure")
    return _executor


@dataclass
class MeasureRun:
    token: str
    cancel: threading.Event = field(default_factory=threading.Event)


class InvalidArguments(ValueError):
    pass


def parse_arguments(args: list[Any], default_argv: tuple[str, ...], default_cwd: str | None, default_samples: int):
    """(argv, cwd, samples) from the command's arguments; raises InvalidArguments."""
    if len(args) == 1 and isinstance(args[0], dict):  # {"argv": [...], "cwd": ..., "samples": ...}
        obj = args[0]
        args = [obj.get("argv"), obj.get("cwd"), obj.get("samples")]
    if len(args) > 3:
        raise InvalidArguments(f"expected at most 3 arguments (argv, cwd, samples), got {len(args)}")
    args = list(args) + [None] * (3 - len(args))
    argv, cwd, samples = args
    if argv is None:
        argv = list(default_argv)
    elif isinstance(argv, str):
        import shlex

        argv = shlex.split(argv)
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        raise InvalidArguments(f"argv must be a list of strings, got {argv!r}")
    if cwd is not None and not isinstance(cwd, str):
        raise InvalidArguments(f"cwd must be a string or null, got {cwd!r}")
    if samples is None:
        samples = default_samples
    if isinstance(samples, bool) or not isinstance(samples, (int, float)) or int(samples) != samples or samples < 1:
        raise InvalidArguments(f"samples must be a positive integer or null, got {samples!r}")
    return argv, cwd or default_cwd, int(samples)


def _failure(summary: str, *, cancelled: bool = False, exit_code: int | None = None) -> dict[str, Any]:
    return {
        "ok": False, "summary": summary, "coldWallS": None, "warmWallS": None, "jsonPath": None,
        "htmlPath": None, "summaryPath": None, "diagnoses": [], "cancelled": cancelled, "exitCode": exit_code,
    }  # fmt: skip


async def measure_command(ls: "WarpCtServer", args: list[Any]) -> dict[str, Any]:
    roots = ls.workspace_roots()
    default_cwd = str(roots[0]) if roots else None
    try:
        argv, cwd, samples = parse_arguments(args, ls.settings.probe_command, default_cwd, ls.settings.samples)
    except InvalidArguments as exc:
        ls.log(f"warp-ct.measure: {exc}", types.MessageType.Error)
        raise JsonRpcInvalidParams(f"warp-ct.measure: {exc}") from None
    if not argv:
        return _failure("No command to measure: pass one (argv) or set the warpCt.probeCommand setting, "
                        'e.g. ["python", "train.py"].')  # fmt: skip
    if ls.measure_task is not None:
        return _failure("A measurement is already running; cancel it or wait for it to finish.")
    try:
        from warp_ct.probe.errors import ProbeCancelled, ProbeError
        from warp_ct.probe.measure import run_measure
    except ImportError as exc:
        return _failure(f"The probe is not available in this installation: {exc}")

    run = MeasureRun(token=f"warp-ct-measure-{uuid.uuid4().hex[:12]}")
    ls.measure_task = run
    progress = ls.capability("window.work_done_progress", False)
    loop = asyncio.get_running_loop()
    command_text = " ".join(argv)
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
                types.WorkDoneProgressBegin(title="Measuring compile time", message=command_text, cancellable=True, percentage=0),
            )

        def on_progress(message: str, fraction: float) -> None:
            if progress:
                value = types.WorkDoneProgressReport(message=message, percentage=max(0, min(100, int(fraction * 100))), cancellable=True)
                ls.call_soon(ls.work_done_progress.report, run.token, value)
            ls.log(f"measure: {message}")

        def work():
            return run_measure(argv, cwd=cwd, samples=samples, progress=on_progress, cancel=run.cancel)

        ls.log(f"measuring `{command_text}` ({samples} sample{'s' if samples != 1 else ''}) in {cwd or os.getcwd()}")
        end_message = "done"
        try:
            report = await asyncio.shield(loop.run_in_executor(_measure_executor(), work))
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
        return await _after_measure(ls, report)
    finally:
        ls.measure_task = None


def _summary_markdown(report: Any, json_path: str, html_path: str | None, unexplained: list[str]) -> str:
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
    lines += ["## Report", "", "```text", render_text(report).rstrip(), "```", "", f"JSON: `{json_path}`"]
    if html_path:
        lines.append(f"HTML (timeline): `{html_path}`")
    return "\n".join(lines) + "\n"


async def _after_measure(ls: "WarpCtServer", report: Any) -> dict[str, Any]:
    analysis = report.analysis
    out_dir = Path(tempfile.mkdtemp(prefix="warp-ct-measure-"))
    json_path = out_dir / "report.json"
    json_path.write_text(json.dumps(report.to_json_dict(), indent=2), encoding="utf-8")
    html_path: Path | None = out_dir / "report.html"
    try:
        from warp_ct.probe.html import write_html

        write_html(report, html_path)
    except Exception as exc:  # noqa: BLE001
        ls.log_error("writing the HTML report", exc)
        html_path = None

    marks = build_marks(report)
    ls.measured.report = report
    ls.measured.marks = marks
    ls.measured.html_path = str(html_path) if html_path else None

    # Re-lint (on the analysis worker) every file the measurement points at, attaching evidence.
    unexplained: list[str] = []
    try:
        unexplained = await asyncio.wrap_future(ls.worker.submit(lambda: _publish_evidence(ls, report, marks)))
    except Exception as exc:  # noqa: BLE001
        ls.log_error("publishing measured evidence", exc)

    summary_path = out_dir / "summary.md"
    summary_path.write_text(_summary_markdown(report, str(json_path), str(html_path) if html_path else None, unexplained), encoding="utf-8")
    ls.measured.summary_path = str(summary_path)
    ls.relint_all()
    if ls.capability("workspace.code_lens.refresh_support", False):
        try:
            ls.workspace_code_lens_refresh(None)
        except Exception as exc:  # noqa: BLE001
            ls.log(f"codeLens refresh failed: {exc}", types.MessageType.Warning)
    if ls.capability("window.show_document.support", False) and not ls.client_shows_reports():
        try:
            await ls.window_show_document_async(
                types.ShowDocumentParams(uri=from_fs_path(str(summary_path)), external=False, take_focus=False)
            )
        except Exception as exc:  # noqa: BLE001
            ls.log(f"window/showDocument failed: {exc}", types.MessageType.Warning)

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


def _publish_evidence(ls: "WarpCtServer", report: Any, marks: dict[str, list]) -> list[str]:
    """Worker thread: lint every measured file in the workspace (open documents are re-linted by
    the caller) and publish its findings with evidence plus the measured diagnostics."""
    from warp_ct.analyzer.engine import read_source
    from warp_ct.server.diagnostics import to_diagnostics

    unexplained: list[str] = []
    open_paths = {normalize_path(d.path) for d in list(ls.docs.values())}
    roots = [Path(normalize_path(str(r))) for r in ls.workspace_roots()]
    all_findings = []
    for path in marks:
        if path in open_paths or not os.path.isfile(path):
            continue
        if roots and not any(Path(path) == r or r in Path(path).parents for r in roots):
            continue  # e.g. kernels inside site-packages
        source = read_source(path)
        folder = ls.folders.folder_for(path)
        folder.load_project()
        result = folder.linter.lint_source_file(source)
        found = ls.attach_evidence(result.findings)
        all_findings.extend(found)
        conv = Converter(source.text or "", ls.encoding)
        diagnostics = to_diagnostics(found, conv) + ls.measured.diagnostics_for(path, conv)
        ls.call_soon(ls._publish_closed, from_fs_path(path), diagnostics)
    try:
        from warp_ct.confirm import attach_evidence

        for doc in list(ls.docs.values()):
            folder = ls.folders.folder_for(doc.path)
            all_findings.extend(folder.linter.lint_text(doc.path, doc.text).findings)
        _confirmed, unexplained = attach_evidence(all_findings, report)
        unexplained = [str(u) for u in unexplained]
    except ImportError:
        ls.log("warp_ct.confirm is not available: findings are not marked confirmed", types.MessageType.Warning)
    return unexplained
