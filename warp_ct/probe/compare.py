"""``warp-ct probe compare BASE.json CAND.json``: did a change make the cold start faster?

A comparison is only valid when both runs did the same work: the launch topology (order
of first launch, kernel, dims, dtypes, devices, block_dims, adjoint, and how often each
ran) must be identical, otherwise the verdict is ``invalid`` — a "speed-up" from launching
less is not a compile-time fix. Kernel keys are compared without their enclosing
functions, so hoisting a per-call kernel to module scope keeps the topology.

The verdict metric is the median compile elapsed time (cold wall - warm wall): what the
user waits for, including any overlap of builds. ``|Δ| <= max(1% of the baseline median,
2 × baseline MAD)`` is ``inconclusive``; with fewer than three samples on either side the
band is at least :func:`few_samples_floor` (such reports cannot measure their own spread).

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
# Fewer samples than this cannot measure their own spread: one sample has a MAD of 0, two a
# MAD of half their difference.
MIN_SAMPLES = 3
# The least band fewer than MIN_SAMPLES samples get, as a share of the baseline median. On a
# loaded 2-core machine single cold runs of one program differ by tens of percent (up to 2x,
# WARP_FACTS.md); a 3-sample MAD of compile elapsed of 1.5 s on a ~13 s median (11%) has been
# reported, so compare's 2 x MAD band at three samples is typically about a fifth of the
# median. One or two samples get at least that band: 1% of the baseline (0.13 s there) called
# a +2% wobble a regression.
FEW_SAMPLES_SHARE = 0.2
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
    samples: int = 0  # the fewer successful samples of the two reports
    floor: float | None = None  # the few-samples floor, when fewer than MIN_SAMPLES

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
            "samples": self.samples,
            "noise_floor": self.floor,
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


@dataclass(frozen=True)
class Decision:
    """How a candidate's median of one metric compares with the baseline's, against noise."""

    verdict: str  # improved | inconclusive | regression
    base_median: float
    cand_median: float
    delta: float
    band: float
    samples: int  # the fewer successful samples of the two reports
    floor: float | None  # few_samples_floor, when samples < MIN_SAMPLES


def few_samples_floor(base: ProbeReport, cand: ProbeReport, metric: str = VERDICT_METRIC) -> float:
    """The least change of ``metric`` that fewer than three samples can tell from noise.

    The larger of the spread this measurement did show and a share of the baseline:
    * ``metric`` between the samples of one report (the same work twice, when it has two);
    * the warm wall times of both reports: warm runs load their cached modules and run the
      same launches, so how far they differ is mostly the machine's noise, and a cold run does
      that same work and compiles too, so its noise is no smaller (a change that also moves
      kernel run time widens the band: erring towards "inconclusive");
    * :data:`FEW_SAMPLES_SHARE` of the baseline median, which three samples' band typically
      reaches where the two runs above happened to agree.
    """
    spreads = [FEW_SAMPLES_SHARE * abs(base.analysis.summary[metric].median or 0.0)]
    for report in (base, cand):
        values = [m[metric] for m in report.analysis.per_sample if m[metric] is not None]
        if len(values) > 1:
            spreads.append(max(values) - min(values))
    warm = [m["warm_wall_s"] for r in (base, cand) for m in r.analysis.per_sample if m["warm_wall_s"] is not None]
    if len(warm) > 1:
        spreads.append(max(warm) - min(warm))
    return max(spreads)


def decide(base: ProbeReport, cand: ProbeReport, metric: str = VERDICT_METRIC) -> Decision | None:
    """The verdict on ``metric``: ``|Δ| <= max(1% of the baseline median, 2 × baseline MAD)``
    is inconclusive, and so is ``|Δ| <= few_samples_floor`` with fewer than three samples on
    either side. None when a report has no value of ``metric``."""
    base_summary, cand_summary = base.analysis.summary[metric], cand.analysis.summary[metric]
    if base_summary.median is None or cand_summary.median is None:
        return None
    delta = cand_summary.median - base_summary.median
    band = max(RELATIVE_BAND * abs(base_summary.median), MAD_BAND * (base_summary.mad or 0.0))
    samples = min(base_summary.n, cand_summary.n)
    floor = few_samples_floor(base, cand, metric) if samples < MIN_SAMPLES else None
    if floor is not None:
        band = max(band, floor)
    if abs(delta) <= band:
        verdict = "inconclusive"
    else:
        verdict = "improved" if delta < 0 else "regression"
    return Decision(verdict, base_summary.median, cand_summary.median, delta, band, samples, floor)


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

    decision = decide(base, cand, VERDICT_METRIC)
    if decision is None:
        raise ReportError("a report lacks warm runs, so compile elapsed cannot be compared")
    return Comparison(
        decision.verdict, VERDICT_METRIC, decision.base_median, decision.cand_median, decision.delta, decision.band,
        [], changed, secondary, decision.samples, decision.floor,
    )  # fmt: skip


def few_samples_text(samples: int, floor: str, how: str = "run with") -> str:
    """``1 sample: inconclusive below ±2.60 s; run with --samples 3``."""
    return f"{samples} sample{'s' if samples != 1 else ''}: inconclusive below ±{floor}; {how} --samples {MIN_SAMPLES}"


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
        if comparison.floor is not None:
            lines.append(f"  {few_samples_text(comparison.samples, f'{comparison.floor:.2f} s', 'measure both with')}")
        for name, values in comparison.secondary.items():
            if values["base"] is not None and values["cand"] is not None:
                lines.append(f"  {name}: {values['base']:.2f} -> {values['cand']:.2f}")
    if comparison.changed_modules:
        lines.append("  module identities that changed:")
        lines += [f"    {m}" for m in comparison.changed_modules]
    else:
        lines.append("  module identities: unchanged")
    return "\n".join(lines) + "\n"
