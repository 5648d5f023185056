"""``write_html``: a self-contained page (inline CSS and SVG, no scripts, no network).

The picture is a timeline per sample: one row per run (cold, warm), one bar per module
load placed at its start and as long as it took, coloured by status — a module rebuilt
three times shows as three bars with the same name; a warm row that is not empty means
the cache was not reused.
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any

from warp_ct.probe.analysis import METRICS
from warp_ct.probe.cuda import render_cuda_html
from warp_ct.probe.records import ModuleLoad
from warp_ct.probe.report import ProbeReport, RunResult
from warp_ct.probe.text import _format_value

_WIDTH = 1000  # px of the time axis
_LABEL_WIDTH = 90
_LANE_HEIGHT = 18
_COLORS = {"compiled": "#e8590c", "cached": "#2f9e44", "error": "#c92a2a"}

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#212529;max-width:1200px}
h1{font-size:20px} h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse} td,th{padding:3px 10px;border-bottom:1px solid #dee2e6;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.diag{border-left:4px solid #e8590c;padding:4px 12px;margin:10px 0;background:#fff4e6}
.diag.info{border-color:#1c7ed6;background:#e7f5ff}
.legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}
code{background:#f1f3f5;padding:0 3px}
svg text{font:11px system-ui,sans-serif}
"""


def _lanes(loads: list[ModuleLoad]) -> list[int]:
    """Greedy lane per load so that overlapping (parallel) builds do not hide each other."""
    lane_ends: list[float] = []
    lanes = []
    for load in loads:
        end = load.start_s + load.ms / 1000.0
        for lane, lane_end in enumerate(lane_ends):
            if load.start_s >= lane_end - 1e-9:
                lane_ends[lane] = end
                lanes.append(lane)
                break
        else:
            lane_ends.append(end)
            lanes.append(len(lane_ends) - 1)
    return lanes


def _timeline_svg(runs: list[tuple[str, RunResult]], span_s: float, axis_width: int = _WIDTH) -> str:
    scale = axis_width / span_s if span_s > 0 else 1.0
    parts: list[str] = []
    y = 20
    for label, run in runs:
        loads = sorted(run.loads, key=lambda load: load.start_s)
        lanes = _lanes(loads)
        height = max(1, max(lanes, default=0) + 1) * _LANE_HEIGHT
        parts.append(f'<text x="0" y="{y + 13}">{html.escape(label)}</text>')
        parts.append(
            f'<rect x="{_LABEL_WIDTH}" y="{y}" width="{run.wall_s * scale:.1f}" height="{height}" '
            f'fill="#f1f3f5"><title>{html.escape(label)}: wall {run.wall_s:.2f} s</title></rect>'
        )
        for load, lane in zip(loads, lanes):
            x = _LABEL_WIDTH + load.start_s * scale
            width = max(1.5, load.ms / 1000.0 * scale)
            top = y + lane * _LANE_HEIGHT + 1
            tip = (
                f"{load.module} {load.short_hash} on {load.device}, block_dim {load.block_dim}: "
                f"{load.ms:.0f} ms ({load.status})"
                + (f", native {load.native_ms:.0f} ms" if load.native_ms else "")
            )
            parts.append(
                f'<rect x="{x:.1f}" y="{top}" width="{width:.1f}" height="{_LANE_HEIGHT - 2}" '
                f'fill="{_COLORS.get(load.status, "#868e96")}"><title>{html.escape(tip)}</title></rect>'
            )
            if width > 60:
                name = load.module if len(load.module) * 6.2 < width - 6 else load.module[: max(1, int((width - 6) / 6.2))]
                parts.append(f'<text x="{x + 3:.1f}" y="{top + 12}" fill="#fff">{html.escape(name)}</text>')
        y += height + 8
    # time axis
    step = _tick_step(span_s)
    tick = 0.0
    while tick <= span_s + 1e-9:
        x = _LABEL_WIDTH + tick * scale
        parts.append(f'<line x1="{x:.1f}" y1="{y}" x2="{x:.1f}" y2="{y + 5}" stroke="#868e96"/>')
        parts.append(f'<text x="{x + 2:.1f}" y="{y + 16}" fill="#495057">{tick:g} s</text>')
        tick += step
    total_height = y + 24
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_LABEL_WIDTH + axis_width + 20}" height="{total_height}" '
        f'role="img" aria-label="module build timeline">{"".join(parts)}</svg>'
    )


def _tick_step(span_s: float) -> float:
    for step in (0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600):
        if span_s / step <= 12:
            return float(step)
    return 1200.0


def render_html(report: ProbeReport) -> str:
    analysis = report.analysis
    esc = html.escape
    out = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        f"<title>warp-ct probe: {esc(' '.join(report.command))}</title><style>{_CSS}</style></head><body>",
        "<h1>Warp compile-time probe</h1>",
        f"<p><code>{esc(' '.join(report.command))}</code><br>{len(report.ok_samples)} of {len(report.samples)} "
        f"samples ok · Warp {esc(', '.join(report.warp_versions) or 'not seen')} · {esc(report.created)}</p>",
        "<h2>Module builds per sample</h2>",
        '<p class=legend>each bar is one module load, placed when it started'
        + "".join(f'<span style="background:{c}"></span>{s}' for s, c in _COLORS.items())
        + "</p>",
    ]
    span = max((run.wall_s for s in report.samples for run in (s.cold, s.warm) if run is not None), default=1.0)
    for sample in report.samples:
        runs = [(f"#{sample.index + 1} cold", sample.cold)]
        if sample.warm is not None:
            runs.append((f"#{sample.index + 1} warm", sample.warm))
        out.append(_timeline_svg(runs, span))

    out.append("<h2>Diagnoses</h2>")
    for diagnosis in analysis.diagnoses:
        evidence = "".join(f"<li>{esc(item)}</li>" for item in diagnosis.evidence[:12])
        klass = "diag" if diagnosis.problem else "diag info"
        out.append(
            f'<div class="{klass}"><b>{esc(diagnosis.title)}</b><p>{esc(diagnosis.message)}</p><ul>{evidence}</ul></div>'
        )

    out.append("<h2>Measurements</h2><table><tr><th>metric</th><th>median</th><th>MAD</th><th>n</th></tr>")
    for name, label, unit in METRICS:
        summary = analysis.summary[name]
        if summary.n:
            out.append(
                f"<tr><td>{esc(label)}</td><td class=num>{_format_value(summary.median, unit)}</td>"
                f"<td class=num>{_format_value(summary.mad, unit)}</td><td class=num>{summary.n}</td></tr>"
            )
    out.append("</table>")

    if analysis.modules:
        out.append(
            "<h2>Module identities</h2><table><tr><th>module</th><th>device</th><th>hashes</th>"
            "<th>block_dims</th><th>builds</th><th>ms</th><th>kernels</th></tr>"
        )
        for module in analysis.modules:
            kernels = ", ".join(k.key for k in module.kernels[:8])
            out.append(
                f"<tr><td><code>{esc(module.name)}</code></td><td>{esc(module.device)}</td>"
                f"<td class=num>{len(module.hashes)}</td><td>{esc(', '.join(map(str, module.block_dims)))}</td>"
                f"<td class=num>{module.builds}</td><td class=num>{module.ms:.0f}</td><td>{esc(kernels)}</td></tr>"
            )
        out.append("</table>")
    cuda = render_cuda_html(report.samples, report.findings)
    if cuda:
        out.append(cuda)
    notes = list(report.notes) + list(analysis.notes)
    if notes:
        out.append("<h2>Notes</h2><ul>" + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>")
    out.append("</body></html>\n")
    return "\n".join(out)


def write_html(report: ProbeReport, path: str | os.PathLike[str]) -> None:
    """Write the self-contained HTML page for ``report`` to ``path``."""
    Path(path).write_text(render_html(report), encoding="utf-8")


_LEVERS_TIMELINE_WIDTH = 560  # narrower than the measure page's, to fit beside the bars

_VERDICT_COLORS = {
    "baseline": "#495057",
    "improved": "#2f9e44",
    "inconclusive": "#adb5bd",
    "regression": "#c92a2a",
    "invalid": "#f08c00",
}


def _ledger_bars_svg(ledger: Any) -> str:
    """One horizontal bar per measured lever (median compile elapsed, MAD whisker), baseline first."""
    base = ledger.baseline.analysis.summary[ledger.metric]
    rows: list[tuple[str, float, float, str, str]] = []
    if base.median is not None:
        rows.append(("baseline", base.median, base.mad or 0.0, "baseline", f"baseline: {base.median:.2f} s"))
    for result in ledger.results:
        if result.status == "measured" and result.median_s is not None:
            tip = f"{result.name}: {result.median_s:.2f} s ({result.verdict}"
            tip += f", {result.relative * 100:+.0f}%)" if result.relative is not None else ")"
            if result.plan.unsafe:
                tip += " - unsafe here"
            rows.append((result.name, result.median_s, result.mad_s or 0.0, result.verdict or "inconclusive", tip))
    if not rows:
        return "<p>No lever was measured.</p>"
    label_width, width, height = 170, 330, 22
    top = max(value + mad for _name, value, mad, _v, _t in rows) or 1.0
    scale = width / top
    parts = []
    for index, (name, value, mad, verdict, tip) in enumerate(rows):
        y = 8 + index * height
        bar = max(1.0, value * scale)
        parts.append(f'<text x="0" y="{y + 14}">{html.escape(name[:34])}</text>')
        parts.append(
            f'<rect x="{label_width}" y="{y + 2}" width="{bar:.1f}" height="{height - 6}" '
            f'fill="{_VERDICT_COLORS.get(verdict, "#868e96")}"><title>{html.escape(tip)}</title></rect>'
        )
        if mad > 0:
            x1, x2 = label_width + (value - mad) * scale, label_width + (value + mad) * scale
            mid = y + height / 2
            parts.append(f'<line x1="{x1:.1f}" y1="{mid:.1f}" x2="{x2:.1f}" y2="{mid:.1f}" stroke="#212529"/>')
        parts.append(f'<text x="{label_width + bar + 6:.1f}" y="{y + 14}">{value:.2f} s</text>')
    total = 16 + len(rows) * height
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_width + width + 80}" height="{total}" role="img" '
        f'aria-label="compile time per lever">{"".join(parts)}</svg>'
    )


def render_levers_html(ledger: Any) -> str:
    """The ledger page: bars per lever beside the baseline's build timeline, then the table."""
    esc = html.escape
    baseline = ledger.baseline
    out = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        f"<title>warp-ct levers: {esc(' '.join(ledger.command))}</title><style>{_CSS}"
        "body{max-width:none}.pair{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}"
        ".pair>div:first-child{max-width:600px}.pair svg{display:block;margin-bottom:6px}"
        ".unsafe{color:#c92a2a;font-weight:bold}"
        "</style></head><body>",
        "<h1>Warp compile-time levers</h1>",
        f"<p><code>{esc(' '.join(ledger.command))}</code><br>{ledger.samples} sample(s) per lever · Warp "
        f"{esc(', '.join(baseline.warp_versions) or 'not seen')} · {esc(ledger.created)}</p>",
        '<div class="pair"><div><h2>Compile time per lever</h2><p class=legend>median '
        + ("(cold − warm)" if ledger.metric == "compile_elapsed_s" else "cold wall (the cache was not reused)")
        + ", MAD as a line"
        + "".join(f'<span style="background:{c}"></span>{v}' for v, c in _VERDICT_COLORS.items())
        + "</p>"
        + _ledger_bars_svg(ledger)
        + "</div><div><h2>Baseline module builds</h2>",
    ]
    span = max((run.wall_s for s in baseline.samples for run in (s.cold, s.warm) if run is not None), default=1.0)
    for sample in baseline.samples[:3]:
        runs = [(f"#{sample.index + 1} cold", sample.cold)]
        if sample.warm is not None:
            runs.append((f"#{sample.index + 1} warm", sample.warm))
        out.append(_timeline_svg(runs, span, axis_width=_LEVERS_TIMELINE_WIDTH))
    out.append("</div></div>")
    out.append(
        "<h2>Ledger</h2><table><tr><th>lever</th><th>status</th><th>verdict</th>"
        f"<th>{esc(ledger.metric.removesuffix('_s').replace('_', ' '))}</th>"
        "<th>change</th><th>notes</th><th>write</th><th>where</th><th>revert</th></tr>"
    )
    for result in ledger.results:
        plan = result.plan
        notes = []
        if plan.unsafe:
            notes.append(f'<span class=unsafe>unsafe here</span>: {esc(plan.unsafe)}')
        if plan.changes_numerics:
            notes.append("changes numerics")
        if plan.runtime_cost:
            notes.append(esc(plan.runtime_cost))
        if plan.not_applicable:
            notes.append(esc(plan.not_applicable))
        if result.error:
            notes.append(esc(result.error))
        elapsed = "" if result.median_s is None else f"{result.median_s:.2f} s ± {(result.mad_s or 0):.2f}"
        change = "" if result.relative is None else f"{(result.delta_s or 0):+.2f} s ({result.relative * 100:+.0f}%)"
        measured = result.status == "measured"
        out.append(
            f"<tr><td><code>{esc(plan.name)}</code><br>{esc(plan.title)}</td><td>{esc(result.status)}</td>"
            f"<td>{esc(result.verdict or '')}</td><td class=num>{elapsed}</td><td class=num>{change}</td>"
            f"<td>{'<br>'.join(notes)}</td><td>{'<code>' + esc(plan.line) + '</code>' if measured else ''}</td>"
            f"<td>{esc(plan.where) if measured else ''}</td><td>{esc(plan.revert) if measured else ''}</td></tr>"
        )
    out.append("</table>")
    if ledger.notes:
        out.append("<h2>Notes</h2><ul>" + "".join(f"<li>{esc(n)}</li>" for n in ledger.notes) + "</ul>")
    out.append("</body></html>\n")
    return "\n".join(out)


def write_levers_html(ledger: Any, path: str | os.PathLike[str]) -> None:
    """Write the self-contained levers page (``warp_ct.probe.levers.Ledger``) to ``path``."""
    Path(path).write_text(render_levers_html(ledger), encoding="utf-8")
