"""``warp-ct probe compare BASE.json CAND.json``: did a change make the cold start faster?

A comparison is only valid when both runs did the same work: the launch topology (order
of first launch, kernel, dims, dtypes, devices, block_dims, adjoint, and how often each
ran) must be identical, otherwise the verdict is ``invalid`` — a "speed-up" from launching
less is not a compile-time fix. Kernel keys are compared without their enclosing
functions, so hoisting a per-call kernel to module scope keeps the topology.

The verdict metric is the median compile elapsed time (cold wall - warm wall): what the
user waits for, including any overlap of builds. ``|Δ| <= max(1% of the baseline median,
2 × baseline MAD)`` is ``inconclusive``.

Exit codes: 0 improved, 1 regression, 3 inconclusive, 4 invalid (topology changed),
2 a report is unreadable or has no successful sample.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from warp_ct.probe.analysis import ModuleIdentity
from warp_ct.probe.errors import ReportError
from warp_ct.probe.report import ProbeReport

EXIT_IMPROVED = 0
EXIT_REGRESSION = 1
EXIT_INCONCLUSIVE = 3
EXIT_INVALID = 4
VERDICT_EXIT_CODES = {
    "improved": EXIT_IMPROVED,
    "regression": EXIT_REGRESSION,
    "inconclusive": EXIT_INCONCLUSIVE,
    "invalid": EXIT_INVALID,
}

VERDICT_METRIC = "compile_elapsed_s"
RELATIVE_BAND = 0.01
MAD_BAND = 2.0
_TOPOLOGY_FIELDS = ("kernel", "dim", "dtypes", "device", "block_dim", "adjoint", "count")


@dataclass
class Comparison:
    verdict: str
    metric: str
    base_median: float | None
    cand_median: float | None
    delta: float | None
    band: float | None
    topology_differences: list[str] = field(default_factory=list)
    changed_modules: list[str] = field(default_factory=list)
    secondary: dict[str, dict[str, float | None]] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return VERDICT_EXIT_CODES[self.verdict]

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "exit_code": self.exit_code,
            "metric": self.metric,
            "base_median": self.base_median,
            "cand_median": self.cand_median,
            "delta": self.delta,
            "band": self.band,
            "topology_differences": self.topology_differences,
            "changed_modules": self.changed_modules,
            "secondary": self.secondary,
        }


def topology_differences(base: ProbeReport, cand: ProbeReport, limit: int = 10) -> list[str]:
    """Human descriptions of how the candidate's launches differ from the baseline's."""
    a, b = base.analysis.launch_topology, cand.analysis.launch_topology
    out: list[str] = []
    for index in range(max(len(a), len(b))):
        if index >= len(a):
            out.append(f"launch #{index + 1} is new: {_describe(b[index])}")
        elif index >= len(b):
            out.append(f"launch #{index + 1} is gone: {_describe(a[index])}")
        elif list(a[index]) != list(b[index]):
            fields = [name for name, x, y in zip(_TOPOLOGY_FIELDS, a[index], b[index]) if x != y]
            out.append(
                f"launch #{index + 1} changed ({', '.join(fields)}): {_describe(a[index])} -> {_describe(b[index])}"
            )
        if len(out) >= limit:
            out.append("…")
            break
    return out


def _describe(entry: Any) -> str:
    kernel, dim, dtypes, device, block_dim, adjoint, count = entry
    return (
        f"{kernel} dim={tuple(dim)} on {device} block_dim={block_dim}"
        + (" adjoint" if adjoint else "")
        + f" ×{count} ({', '.join(dtypes)})"
    )


def module_match_key(module: ModuleIdentity) -> tuple[Any, ...]:
    """How a module is recognised in another run: by the kernels it holds, on its device.

    A ``module="unique"`` module's name carries a hash of its kernel, so an option change
    renames it; its kernels stay. A module without recorded kernels falls back to its name.
    """
    keys = module.kernel_keys
    return ("kernels", keys, module.device) if keys else ("name", module.name, module.device)


def changed_module_identities(base: ProbeReport, cand: ProbeReport) -> list[str]:
    """One line per module whose identity differs: gone, new, or a different set of hashes."""

    def by_key(report: ProbeReport) -> dict[tuple[Any, ...], ModuleIdentity]:
        out: dict[tuple[Any, ...], ModuleIdentity] = {}
        for module in report.analysis.modules:
            out.setdefault(module_match_key(module), module)
        return out

    a, b = by_key(base), by_key(cand)
    out = []
    for key in sorted(set(a) | set(b), key=lambda k: (a.get(k) or b[k]).name):
        old, new = a.get(key), b.get(key)
        if new is None:
            assert old is not None
            out.append(f"`{old.name}` on {old.device}: gone (was {len(old.hashes)} hash(es))")
        elif old is None:
            out.append(f"`{new.name}` on {new.device}: new ({len(new.hashes)} hash(es))")
        elif old.hashes != new.hashes:
            name = old.name if old.name == new.name else f"{old.name} -> {new.name}"
            out.append(
                f"`{name}` on {old.device}: {len(old.hashes)} -> {len(new.hashes)} hash(es) "
                f"({', '.join(h[:8] for h in old.hashes)} -> {', '.join(h[:8] for h in new.hashes)})"
            )
    return out


def compare_reports(base: ProbeReport, cand: ProbeReport) -> Comparison:
    for label, report in (("baseline", base), ("candidate", cand)):
        if not report.ok_samples:
            raise ReportError(f"the {label} report has no successful sample to compare")

    changed = changed_module_identities(base, cand)
    secondary = {
        name: {"base": base.analysis.summary[name].median, "cand": cand.analysis.summary[name].median}
        for name in ("cold_wall_s", "cold_module_ms", "native_compile_ms", "warm_wall_s")
    }
    differences = topology_differences(base, cand)
    if differences:
        return Comparison("invalid", VERDICT_METRIC, None, None, None, None, differences, changed, secondary)

    base_summary = base.analysis.summary[VERDICT_METRIC]
    cand_summary = cand.analysis.summary[VERDICT_METRIC]
    if base_summary.median is None or cand_summary.median is None:
        raise ReportError("a report lacks warm runs, so compile elapsed cannot be compared")
    delta = cand_summary.median - base_summary.median
    band = max(RELATIVE_BAND * abs(base_summary.median), MAD_BAND * (base_summary.mad or 0.0))
    if abs(delta) <= band:
        verdict = "inconclusive"
    else:
        verdict = "improved" if delta < 0 else "regression"
    return Comparison(verdict, VERDICT_METRIC, base_summary.median, cand_summary.median, delta, band, [], changed, secondary)


def render_comparison(comparison: Comparison) -> str:
    lines = [f"verdict: {comparison.verdict}"]
    if comparison.verdict == "invalid":
        lines.append("  the launch topology changed, so the timings are not comparable:")
        lines += [f"    {d}" for d in comparison.topology_differences]
    else:
        assert comparison.base_median is not None and comparison.cand_median is not None
        assert comparison.delta is not None and comparison.band is not None
        relative = comparison.delta / comparison.base_median * 100 if comparison.base_median else 0.0
        lines.append(
            f"  compile elapsed (median): {comparison.base_median:.2f} s -> {comparison.cand_median:.2f} s "
            f"(Δ {comparison.delta:+.2f} s, {relative:+.1f}%; noise band ±{comparison.band:.2f} s)"
        )
        for name, values in comparison.secondary.items():
            if values["base"] is not None and values["cand"] is not None:
                lines.append(f"  {name}: {values['base']:.2f} -> {values['cand']:.2f}")
    if comparison.changed_modules:
        lines.append("  module identities that changed:")
        lines += [f"    {m}" for m in comparison.changed_modules]
    else:
        lines.append("  module identities: unchanged")
    return "\n".join(lines) + "\n"
