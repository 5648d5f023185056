"""Terminal rendering of a probe report (``render_text``) — plain text, no colours."""

from __future__ import annotations

from warp_ct.probe.analysis import METRICS, busy_warning
from collections.abc import Mapping

from warp_ct.probe.cuda import render_cuda_text
from warp_ct.probe.findings import measured_key
from warp_ct.probe.report import ProbeReport

_MODULE_ROWS = 25


def _format_value(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "ms":
        return f"{value:.0f} ms"
    if unit == "s":
        return f"{value:.2f} s"
    if unit == "x":
        return f"{value:.2f}x"
    if unit == "bytes":
        return f"{value / 1024:.1f} KiB"
    return f"{value:g}"


def render_text(report: ProbeReport, paired: Mapping[tuple[str, str, int, str], str] | None = None) -> str:
    """The human report: metrics (median ± MAD), module identities, diagnoses with evidence,
    and the measured findings, one line each.

    ``paired``: where the measurement was joined with static findings (``warp_ct.confirm``'s
    join, e.g. in the editor's measurement summary), the line to print instead of a measured
    finding that a static finding stands for (by ``measured_key``): the static finding with
    the measured figures, ``[static + measured]``, printed once for the pair."""
    analysis = report.analysis
    ok = len(report.ok_samples)
    lines = [
        f"warp-ct probe: {' '.join(report.command)}",
        f"  samples: {ok} ok of {len(report.samples)}; Warp {', '.join(report.warp_versions) or 'not seen'}",
    ]
    warning = busy_warning(analysis.busy) if analysis.busy else None
    if warning:
        lines.append(f"  warning: {warning}")
    lines += ["", "Measurements (median ± MAD over samples)"]
    for name, label, unit in METRICS:
        summary = analysis.summary[name]
        if summary.n == 0:
            continue
        lines.append(f"  {label:<32} {_format_value(summary.median, unit):>12}  ± {_format_value(summary.mad, unit)}")

    if analysis.modules:
        lines += ["", "Module identities (cold run of the first ok sample)"]
        lines.append(f"  {'module':<36} {'device':<8} {'hashes':>6} {'block_dims':<12} {'builds':>6} {'ms':>9}  kernels")
        for module in analysis.modules[:_MODULE_ROWS]:
            block_dims = ",".join(str(b) for b in module.block_dims)
            kernels = ", ".join(k.key for k in module.kernels[:4]) + (" …" if len(module.kernels) > 4 else "")
            lines.append(
                f"  {module.name[:36]:<36} {module.device[:8]:<8} {len(module.hashes):>6} {block_dims[:12]:<12} "
                f"{module.builds:>6} {module.ms:>9.0f}  {kernels}"
            )
        if len(analysis.modules) > _MODULE_ROWS:
            lines.append(f"  … {len(analysis.modules) - _MODULE_ROWS} more modules in the JSON report")

    lines += ["", "Diagnoses"]
    for diagnosis in analysis.diagnoses:
        marker = "!" if diagnosis.problem else "-"
        lines.append(f"  {marker} {diagnosis.title}")
        lines.append(f"    {diagnosis.message}")
        for item in diagnosis.evidence[:8]:
            lines.append(f"      · {item}")
    if not analysis.diagnoses:
        lines.append("  (no successful sample to analyse)")

    lines += render_cuda_text(report.samples)

    findings = report.findings
    if findings:
        lines += ["", "Measured findings (where the rebuilds came from)"]
        printed: set[str] = set()
        for finding in findings:
            pair = (paired or {}).get(measured_key(finding))
            if pair is not None:
                if pair not in printed:  # one static finding may stand for two measured ones
                    printed.add(pair)
                    lines.append(f"  {pair}")
                continue
            where = f"{finding['path']}:{finding['location']['line']}:{finding['location']['column']}"
            lines.append(f"  {where}: {finding['code']} [{finding['name']}] {finding['message']}")

    failed = [s for s in report.samples if not s.ok]
    if failed:
        lines += ["", f"{len(failed)} sample(s) failed:"]
        for sample in failed:
            run = sample.warm if sample.warm is not None and not sample.warm.ok else sample.cold
            lines.append(f"  sample {sample.index + 1}: {run.kind} run exited with {run.exit_code}")
    notes = [note for note in list(report.notes) + list(analysis.notes) if note != warning]
    if notes:
        lines += ["", "Notes"] + [f"  - {note}" for note in notes]
    return "\n".join(lines) + "\n"
