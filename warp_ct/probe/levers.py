"""``warp-ct probe levers``: measure each compile option change alone, as a ledger.

The command is measured as it is (the baseline, exactly ``probe measure``), then once per
*lever* with only that lever applied by the injected bootstrap before any user module is
created (``$WARP_CT_PROBE_LEVER``: ``wp.config`` values pinned from Warp's import on,
module options set before each module's hash is computed). No user file is edited and no
wrapper script is written.

Which levers are tried follows from the baseline: backward code off for the process (and
for each module alone when several built it), precompiled headers back on where the
program turned them off, a lower ``max_unroll``, ``lineinfo``/``mode`` off debug where the
program set them, a lower ``optimization_level``, and ``fast_math`` (changes numerics:
measured, never recommended without asking). ``NAME=VALUE`` tries any module option.

Each row is judged like ``probe compare`` (same band, same launch-topology check; with
fewer than three samples a change inside the few-samples floor is inconclusive), and
says whether the lever is *unsafe here* (something differentiates through those kernels:
with backward code off Warp 1.19 skips them in ``tape.backward()`` with a warning and the
gradients silently stay zero), the exact line to write and where, and how to revert it.

Stable API (the language server calls it from a worker thread)::

    ledger = run_levers(argv, cwd=root, samples=3, only=None, timeout=None,
                        progress=lambda message, fraction: ..., announce=print, cancel=event)
    ledger.to_json_dict(); render_ledger_text(ledger); load_ledger(path)
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from warp_ct.probe.analysis import ModuleIdentity
from warp_ct.probe.analysis import busy_warning
from warp_ct.probe.compare import compare_reports, decide, few_samples_text, module_match_key
from warp_ct.probe.errors import ProbeCancelled, ProbeError, ReportError
from warp_ct.probe.measure import Progress, check_run_limits, run_measure
from warp_ct.probe.records import ConfigAssignment
from warp_ct.probe.report import ProbeReport

# 2: noise_floor_s and generated_source_bytes per lever, baseline_generated_source_bytes.
LEDGER_SCHEMA_VERSION = 2
_READABLE_LEDGER_VERSIONS = (1, 2)
LEDGER_KIND = "warp-ct-levers"

LOWER_MAX_UNROLL = 4
LOWER_OPTIMIZATION_LEVEL = 1
# Per-module backward levers beyond this many (largest modules first) are listed, not run.
MAX_MODULE_LEVERS = 8

# What a lever is judged on: compile elapsed (cold wall - warm wall), what a user waits for.
# When the baseline's warm runs compile as much as its cold runs (the cache is not reused),
# compile elapsed is ~0 and says nothing: the cold wall time is judged instead.
# metric -> (label, the CPU-time metric beside it)
JUDGED_METRICS = {
    "compile_elapsed_s": ("compile elapsed", "compile_cpu_s"),
    "cold_wall_s": ("cold wall", "cold_cpu_s"),
}
COMPILE_ELAPSED_FLOOR = 0.1  # share of the cold wall below which compile elapsed says nothing

NAMED_LEVERS = (
    "backward",
    "precompiled-headers",
    "max-unroll",
    "lineinfo",
    "release-mode",
    "optimization-level",
    "fast-math",
)
MODULE_BACKWARD_PREFIX = "backward:"
_CUSTOM_LEVER = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")

Announce = Callable[[str], None]


@dataclass
class LeverPlan:
    """One option change to try, what it targets, and what to tell the user about it."""

    name: str
    title: str
    config: dict[str, Any] = field(default_factory=dict)  # wp.config values pinned from import on
    module_options: dict[str, Any] = field(default_factory=dict)  # set before each targeted load
    modules: list[str] | None = None  # module names the module options target (None: all)
    targets: list[str] = field(default_factory=list)  # modules whose identity should move
    changes_numerics: bool = False
    runtime_cost: str | None = None
    unsafe: str | None = None  # why the lever is unsafe in this program
    not_applicable: str | None = None
    line: str = ""
    where: str = ""
    revert: str = ""

    def spec(self) -> dict[str, Any]:
        """What the bootstrap reads from ``$WARP_CT_PROBE_LEVER``."""
        return {"config": self.config, "module_options": self.module_options, "modules": self.modules}


@dataclass
class LeverResult:
    """A ledger row: a plan and, when it ran, its measurement against the baseline."""

    plan: LeverPlan
    status: str  # "measured" | "not applicable" | "failed"
    verdict: str | None = None  # improved | inconclusive | regression | invalid
    metric: str = "compile_elapsed_s"  # what median_s, delta_s, band_s measure (JUDGED_METRICS)
    median_s: float | None = None
    mad_s: float | None = None
    samples: int = 0
    cold_wall_s: float | None = None
    delta_s: float | None = None
    band_s: float | None = None
    floor_s: float | None = None  # compare.few_samples_floor, when judged on fewer than three samples
    relative: float | None = None  # delta / baseline median
    cpu_median_s: float | None = None  # the CPU time beside the metric: steadier than wall on a loaded machine
    cpu_relative: float | None = None
    generated_source_bytes: float | None = None  # median over the lever's samples
    topology_differences: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)  # targeted modules whose hashes changed
    unmoved: list[str] = field(default_factory=list)  # targeted modules whose hashes did not
    error: str | None = None
    report: ProbeReport | None = None

    @property
    def name(self) -> str:
        return self.plan.name

    @property
    def cpu_disagrees(self) -> bool:
        """Wall time calls it a change that the command's CPU time does not show (a busy machine)."""
        if self.cpu_relative is None:
            return False
        return (self.verdict == "improved" and self.cpu_relative > -0.01) or (
            self.verdict == "regression" and self.cpu_relative < 0.01
        )

    @property
    def few_samples(self) -> bool:
        """Judged on fewer than three samples (its band is at least the few-samples floor)."""
        return self.floor_s is not None

    def figure(self) -> str:
        """``-62% compile elapsed, 3 samples`` (or why there is no figure); an inconclusive one
        names its band: ``+2% compile elapsed, 1 sample: within the ±2.60 s noise band``."""
        if self.status != "measured" or self.relative is None:
            return self.error or self.plan.not_applicable or self.status
        samples = f"{self.samples} sample{'s' if self.samples != 1 else ''}"
        if self.verdict == "inconclusive" and self.band_s is not None:
            samples += f": within the ±{self.band_s:.2f} s noise band"
        return f"{self.relative * 100:+.0f}% {self.metric_label}, {samples}"

    @property
    def metric_label(self) -> str:
        return JUDGED_METRICS.get(self.metric, (self.metric, ""))[0]

    def to_dict(self) -> dict[str, Any]:
        plan = self.plan
        return {
            "name": plan.name,
            "title": plan.title,
            "status": self.status,
            "verdict": self.verdict,
            "metric": self.metric,
            "median_s": _round(self.median_s),
            "mad_s": _round(self.mad_s),
            "samples": self.samples,
            "cold_wall_s": _round(self.cold_wall_s),
            "delta_s": _round(self.delta_s),
            "band_s": _round(self.band_s),
            "noise_floor_s": _round(self.floor_s),
            "relative": _round(self.relative),
            "cpu_median_s": _round(self.cpu_median_s),
            "cpu_relative": _round(self.cpu_relative),
            "generated_source_bytes": None if self.generated_source_bytes is None else round(self.generated_source_bytes),
            "changes_numerics": plan.changes_numerics,
            "runtime_cost": plan.runtime_cost,
            "unsafe": plan.unsafe is not None,
            "unsafe_reason": plan.unsafe,
            "not_applicable": plan.not_applicable,
            "applied": plan.spec(),
            "targets": plan.targets,
            "moved": self.moved,
            "unmoved": self.unmoved,
            "topology_differences": self.topology_differences,
            "line": plan.line,
            "where": plan.where,
            "revert": plan.revert,
            "error": self.error,
            "cpu_disagrees": self.cpu_disagrees,
            "report": None if self.report is None else self.report.to_json_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LeverResult:
        applied = data.get("applied") or {}
        plan = LeverPlan(
            name=str(data["name"]),
            title=str(data.get("title", "")),
            config=dict(applied.get("config") or {}),
            module_options=dict(applied.get("module_options") or {}),
            modules=applied.get("modules"),
            targets=list(data.get("targets") or ()),
            changes_numerics=bool(data.get("changes_numerics", False)),
            runtime_cost=data.get("runtime_cost"),
            unsafe=data.get("unsafe_reason"),
            not_applicable=data.get("not_applicable"),
            line=str(data.get("line", "")),
            where=str(data.get("where", "")),
            revert=str(data.get("revert", "")),
        )
        report = data.get("report")
        return cls(
            plan=plan,
            status=str(data["status"]),
            verdict=data.get("verdict"),
            metric=str(data.get("metric", "compile_elapsed_s")),
            median_s=data.get("median_s"),
            mad_s=data.get("mad_s"),
            samples=int(data.get("samples", 0)),
            cold_wall_s=data.get("cold_wall_s"),
            delta_s=data.get("delta_s"),
            band_s=data.get("band_s"),
            floor_s=data.get("noise_floor_s"),
            relative=data.get("relative"),
            cpu_median_s=data.get("cpu_median_s"),
            cpu_relative=data.get("cpu_relative"),
            generated_source_bytes=data.get("generated_source_bytes"),
            topology_differences=list(data.get("topology_differences") or ()),
            moved=list(data.get("moved") or ()),
            unmoved=list(data.get("unmoved") or ()),
            error=data.get("error"),
            report=None if report is None else ProbeReport.from_json_dict(report),
        )


@dataclass
class Ledger:
    """The baseline and one row per lever, in the order they were planned."""

    command: list[str]
    cwd: str
    samples: int
    baseline: ProbeReport
    results: list[LeverResult]
    notes: list[str] = field(default_factory=list)
    metric: str = "compile_elapsed_s"
    created: str = field(default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))

    def result(self, name: str) -> LeverResult:
        for result in self.results:
            if result.name == name:
                return result
        raise KeyError(name)

    def to_json_dict(self) -> dict[str, Any]:
        base = self.baseline.analysis.summary[self.metric]
        return {
            "schema_version": LEDGER_SCHEMA_VERSION,
            "kind": LEDGER_KIND,
            "tool": self.baseline.tool,
            "command": list(self.command),
            "cwd": self.cwd,
            "created": self.created,
            "samples": self.samples,
            "warp_versions": self.baseline.warp_versions,
            "metric": self.metric,
            "baseline_median_s": _round(base.median),
            "baseline_mad_s": _round(base.mad),
            "baseline_generated_source_bytes": _bytes(self.baseline.analysis.summary["generated_source_bytes"].median),
            "notes": list(self.notes),
            "levers": [r.to_dict() for r in self.results],
            "baseline": self.baseline.to_json_dict(),
        }

    @classmethod
    def from_json_dict(cls, data: Any) -> Ledger:
        if not is_ledger_json(data):
            raise ReportError("not a warp-ct levers ledger (no kind 'warp-ct-levers')")
        if data.get("schema_version") not in _READABLE_LEDGER_VERSIONS:
            raise ReportError(
                f"levers ledger schema version {data.get('schema_version')} is not supported "
                f"(this warp-ct reads {', '.join(map(str, _READABLE_LEDGER_VERSIONS))})"
            )
        try:
            return cls(
                command=list(data["command"]),
                cwd=str(data.get("cwd", "")),
                samples=int(data.get("samples", 0)),
                baseline=ProbeReport.from_json_dict(data["baseline"]),
                results=[LeverResult.from_dict(r) for r in data["levers"]],
                notes=list(data.get("notes") or ()),
                metric=str(data.get("metric", "compile_elapsed_s")),
                created=str(data.get("created", "")),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ReportError(f"malformed levers ledger: {error!r}") from None


def is_ledger_json(data: Any) -> bool:
    return isinstance(data, dict) and data.get("kind") == LEDGER_KIND


def load_ledger(path: str | os.PathLike[str]) -> Ledger:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise ReportError(f"cannot read ledger {path}: {error.strerror or error}") from None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ReportError(f"ledger {path} is not JSON: {error}") from None
    return Ledger.from_json_dict(data)


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _bytes(value: float | None) -> int | None:
    return None if value is None else round(value)


# -- planning --------------------------------------------------------------------------


def parse_only(only: str | Sequence[str] | None) -> list[str] | None:
    """``--only a,b`` -> ["a", "b"]; unknown names raise a ProbeError that lists the known ones."""
    if only is None:
        return None
    items = [only] if isinstance(only, str) else list(only)
    names = [part.strip() for item in items for part in item.split(",") if part.strip()]
    if not names:
        raise ProbeError("--only needs at least one lever name")
    for name in names:
        if name in NAMED_LEVERS or name.startswith(MODULE_BACKWARD_PREFIX) or _CUSTOM_LEVER.match(name):
            continue
        raise ProbeError(
            f"unknown lever {name!r}: use one of {', '.join(NAMED_LEVERS)}, backward:MODULE, or OPTION=VALUE"
        )
    return names


def _parse_value(text: str) -> Any:
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null"):
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text.strip().strip("'\"")


def _is_library_file(path: str | None) -> bool:
    return bool(path) and ("site-packages" in path or "dist-packages" in path)


def _is_warp_internal(path: str | None) -> bool:
    if not path:
        return True
    parts = Path(path).parts
    return "warp" in parts and ("site-packages" in parts or "dist-packages" in parts or "_src" in parts)


def _entry_point(report: ProbeReport) -> str:
    command = report.command
    for index, arg in enumerate(command):
        if arg == "-m" and index + 1 < len(command):
            return f"`{command[index + 1]}`'s `__main__`"
        if arg.endswith(".py"):
            return f"`{_shown_path(arg, report.cwd)}`"
    return "the application's entry point"


def _shown_path(path: str, cwd: str) -> str:
    """``path`` relative to the measured working directory when it lies under it."""
    if cwd and os.path.isabs(path):
        try:
            relative = os.path.relpath(path, cwd)
        except ValueError:
            return path
        return path if relative.startswith("..") else relative
    return path


def _entry_where(report: ProbeReport) -> str:
    return (
        f"at the application's entry point ({_entry_point(report)}), right after `import warp as wp` and "
        "before importing any module that defines kernels (options are copied when a module is created)"
    )


def _at(assignment: ConfigAssignment, cwd: str) -> str:
    return f"{_shown_path(assignment.file or '?', cwd)}:{assignment.line}"


def _describe_module(module: ModuleIdentity) -> str:
    return f"`{module.name}`"


def _module_where(module: ModuleIdentity, report: ProbeReport) -> tuple[str, str]:
    """(line, where) for an option on one module alone."""
    files = [k.file for k in module.kernels if k.file]
    first = module.kernels[0] if module.kernels else None
    if module.is_unique_module and first is not None:
        return (
            '@wp.kernel(enable_backward=False, module="unique")',
            f"on the decorator of `{first.key}` at {_shown_path(first.file or '?', report.cwd)}:{first.line} (a unique module does not "
            "inherit its file's set_module_options)",
        )
    if files and not any(_is_library_file(f) for f in files):
        return (
            'wp.set_module_options({"enable_backward": False})',
            f"in {_shown_path(files[0], report.cwd)}, after `import warp as wp` and before its first kernel "
            f"(module `{module.name}`)",
        )
    return (
        f'wp.get_module("{module.name}").options["enable_backward"] = False',
        f"at the application's entry point ({_entry_point(report)}), after importing `{module.name}` and "
        "before its first launch (a library module: its other users may need gradients)",
    )


def _program_assignments(report: ProbeReport, name: str) -> list[ConfigAssignment]:
    first = report.ok_samples[0]
    return [a for a in first.cold.config_assignments if a.name == name and not _is_warp_internal(a.file)]


def plan_levers(baseline: ProbeReport, only: Sequence[str] | None = None) -> tuple[list[LeverPlan], list[str]]:
    """The levers worth trying on this measured program (or the ``only`` ones), and notes."""
    modules = baseline.analysis.modules
    first = baseline.ok_samples[0]
    warp_config = first.cold.warp_config
    version = ", ".join(baseline.warp_versions) or "this Warp"
    option_names = {n for m in modules for n in m.option_names}
    notes: list[str] = []
    plans: dict[str, LeverPlan] = {}
    entry_where = _entry_where(baseline)

    # A module whose options changed between loads was built with each set: a lever applies
    # when any of its loads had the option it changes.
    loads_of: dict[str, list[Any]] = {}
    for load in first.cold.loads:
        loads_of.setdefault(load.module, []).append(load)

    def ever(module: ModuleIdentity, test: Callable[[dict[str, Any], dict[str, Any]], bool]) -> bool:
        loads = loads_of.get(module.name) or []
        if not loads:
            return test(module.options, module.config)
        return any(test(load.options, load.config) for load in loads)

    def has_module_option(name: str) -> bool:
        # Loads from before option names were recorded: trust the recorded options.
        return name in option_names or any(name in m.options for m in modules)

    # backward code off, for the process and per module
    with_backward = [m for m in modules if ever(m, lambda o, _c: bool(o.get("enable_backward")))]
    differentiated = [m for m in with_backward if m.differentiated]
    backward = LeverPlan(
        "backward",
        "enable_backward=False for the whole process",
        config={"enable_backward": False},
        targets=[m.name for m in with_backward],
        line="wp.config.enable_backward = False",
        where=entry_where,
        revert="delete that line (Warp's default is enable_backward=True)",
    )
    if "enable_backward" not in warp_config and not has_module_option("enable_backward"):
        backward.not_applicable = f"Warp {version} has no enable_backward option"
    elif not with_backward:
        backward.not_applicable = "no module built backward code"
    if differentiated:
        backward.unsafe = "; ".join(_why_differentiated(m) for m in differentiated)
    own = _program_assignments(baseline, "enable_backward")
    if own:
        backward.where = f"the program assigns it itself at {_at(own[-1], baseline.cwd)}: change that assignment"
    plans["backward"] = backward

    per_module = sorted(with_backward, key=lambda m: -m.ms)
    wanted_modules = [n[len(MODULE_BACKWARD_PREFIX):] for n in (only or ()) if n.startswith(MODULE_BACKWARD_PREFIX)]
    if only is None and len(per_module) >= 2:
        if len(per_module) > MAX_MODULE_LEVERS:
            notes.append(
                f"{len(per_module)} modules built backward code; the {MAX_MODULE_LEVERS} slowest get a lever of their "
                "own (--only backward:MODULE for another)"
            )
        wanted_modules = [m.name for m in per_module[:MAX_MODULE_LEVERS]]
    by_name = {m.name: m for m in modules}
    for module_name in wanted_modules:
        module = by_name.get(module_name)
        name = MODULE_BACKWARD_PREFIX + module_name
        plan = LeverPlan(
            name,
            f"enable_backward=False for module `{module_name}` alone",
            module_options={"enable_backward": False},
            modules=[module_name],
            targets=[module_name],
            revert="delete that line (or set enable_backward back to True)",
        )
        if module is None:
            plan.not_applicable = f"module `{module_name}` was not loaded in the baseline"
        elif not ever(module, lambda o, _c: bool(o.get("enable_backward"))):
            plan.not_applicable = f"module `{module_name}` built no backward code"
        else:
            plan.line, plan.where = _module_where(module, baseline)
            if module.differentiated:
                plan.unsafe = _why_differentiated(module)
        plans[name] = plan

    # precompiled headers back on
    pch = LeverPlan(
        "precompiled-headers",
        "use_precompiled_headers=True",
        config={"use_precompiled_headers": True},
        targets=[],
        line="wp.config.use_precompiled_headers = True",
        where=entry_where,
        revert="restore the program's `wp.config.use_precompiled_headers = False`",
    )
    pch_off = [m for m in modules if ever(m, lambda _o, c: c.get("use_precompiled_headers") is False)]
    if "use_precompiled_headers" not in warp_config and not any("use_precompiled_headers" in m.config for m in modules):
        pch.not_applicable = f"Warp {version} has no wp.config.use_precompiled_headers"
    elif not pch_off:
        pch.not_applicable = "the program keeps precompiled headers on"
    elif not any(m.device.startswith("cpu") for m in pch_off):
        pch.not_applicable = "only CPU builds use precompiled headers"
    own = [a for a in _program_assignments(baseline, "use_precompiled_headers") if a.value is False]
    if own:
        pch.where = f"at {_at(own[-1], baseline.cwd)}, where the program turns them off: delete it or write this"
    plans["precompiled-headers"] = pch

    # a lower max_unroll
    unroll = LeverPlan(
        "max-unroll",
        f"max_unroll={LOWER_MAX_UNROLL} (fewer unrolled loops)",
        config={"max_unroll": LOWER_MAX_UNROLL},
        targets=[m.name for m in modules if ever(m, lambda o, _c: (o.get("max_unroll") or 0) > LOWER_MAX_UNROLL)],
        runtime_cost=f"loops longer than {LOWER_MAX_UNROLL} iterations are no longer unrolled: kernels may run slower",
        line=f"wp.config.max_unroll = {LOWER_MAX_UNROLL}",
        where=entry_where,
        revert="delete that line (Warp's default is 16)",
    )
    if "max_unroll" not in warp_config and not has_module_option("max_unroll"):
        unroll.not_applicable = f"Warp {version} has no max_unroll option"
    elif not unroll.targets:
        unroll.not_applicable = f"every module already has max_unroll <= {LOWER_MAX_UNROLL}"
    plans["max-unroll"] = unroll

    # lineinfo off where the program turned it on
    lineinfo_on = [m for m in modules if ever(m, lambda o, _c: bool(o.get("lineinfo")))]
    lineinfo = LeverPlan(
        "lineinfo",
        "lineinfo=False",
        config={"lineinfo": False},
        module_options={"lineinfo": False},
        targets=[m.name for m in lineinfo_on],
        line="wp.config.lineinfo = False",
        where=entry_where,
        revert="restore the program's lineinfo=True where it set it",
    )
    if "lineinfo" not in warp_config and not has_module_option("lineinfo"):
        lineinfo.not_applicable = f"Warp {version} has no lineinfo option"
    elif not lineinfo_on:
        lineinfo.not_applicable = "no module was built with lineinfo"
    else:
        _where_program_set(lineinfo, baseline, "lineinfo", True, "lineinfo", "False", lineinfo_on)
    plans["lineinfo"] = lineinfo

    # release mode where the program built in debug
    debug = [m for m in modules if ever(m, lambda o, c: _resolved(o, c, "mode") == "debug")]
    release = LeverPlan(
        "release-mode",
        'mode="release"',
        config={"mode": "release"},
        module_options={"mode": "release"},
        targets=[m.name for m in debug],
        line='wp.config.mode = "release"',
        where=entry_where,
        revert='restore the program\'s mode="debug" where it set it',
    )
    if "mode" not in warp_config and not has_module_option("mode"):
        release.not_applicable = f"Warp {version} has no mode option"
    elif not debug:
        release.not_applicable = "every module was built in release mode"
    else:
        _where_program_set(release, baseline, "mode", "debug", "mode", '"release"', debug)
    plans["release-mode"] = release

    # a lower optimization level
    level = LeverPlan(
        "optimization-level",
        f"optimization_level={LOWER_OPTIMIZATION_LEVEL}",
        config={"optimization_level": LOWER_OPTIMIZATION_LEVEL},
        targets=[m.name for m in modules if ever(m, lambda o, c: (_resolved(o, c, "optimization_level") or 99) > LOWER_OPTIMIZATION_LEVEL)],
        runtime_cost=f"kernels are compiled at -O{LOWER_OPTIMIZATION_LEVEL}: they may run slower",
        line=f"wp.config.optimization_level = {LOWER_OPTIMIZATION_LEVEL}",
        where=entry_where,
        revert="delete that line (Warp's default: -O2 on CPU, -O3 on CUDA)",
    )
    if "optimization_level" not in warp_config and not has_module_option("optimization_level"):
        level.not_applicable = f"Warp {version} has no optimization_level option"
    elif not level.targets:
        level.not_applicable = f"every module is already built at -O{LOWER_OPTIMIZATION_LEVEL} or lower"
    plans["optimization-level"] = level

    # fast math: changes numerics
    fast = LeverPlan(
        "fast-math",
        "fast_math=True (changes numerics)",
        module_options={"fast_math": True},
        targets=[m.name for m in modules if ever(m, lambda o, _c: o.get("fast_math") is False)],
        changes_numerics=True,
        line='wp.set_module_options({"fast_math": True})',
        where="in each module's own file, before its first kernel — only after asking: it changes numerics",
        revert="delete that line",
    )
    if not has_module_option("fast_math"):
        fast.not_applicable = f"Warp {version} has no fast_math module option"
    elif not fast.targets:
        fast.not_applicable = "every module already uses fast_math"
    plans["fast-math"] = fast

    for name in only or ():
        match = _CUSTOM_LEVER.match(name)
        if match:
            plans[name] = _custom_plan(name, match.group(1), _parse_value(match.group(2)), baseline, modules, version)

    if not modules:  # nothing was compiled: no option can change a build
        for plan in plans.values():
            plan.not_applicable = "the baseline loaded no Warp module"
    if only is None:
        ordered = [plans[n] for n in ("backward",)] + [p for n, p in plans.items() if n.startswith(MODULE_BACKWARD_PREFIX)]
        ordered += [plans[n] for n in NAMED_LEVERS[1:]]
    else:
        ordered = [plans[n] for n in only if n in plans]
    return ordered, notes


def _why_differentiated(module: ModuleIdentity) -> str:
    reasons = []
    if module.adjoint_launched:
        reasons.append("launched adjoint kernels")
    if module.taped:
        reasons.append("recorded its kernels on a wp.Tape")
    return f"the baseline {' and '.join(reasons)} of `{module.name}`"


def _resolved(options: dict[str, Any], config: dict[str, Any], name: str) -> Any:
    """A module option that inherits ``wp.config`` when None (``mode``, ``optimization_level``)."""
    value = options.get(name)
    return config.get(name) if value is None else value


def _where_program_set(
    plan: LeverPlan, report: ProbeReport, config_name: str, value: Any, option: str, new_text: str,
    modules: list[ModuleIdentity],
) -> None:  # fmt: skip
    own = [a for a in _program_assignments(report, config_name) if a.value == value]
    if own:
        plan.where = f"at {_at(own[-1], report.cwd)}, where the program sets it: change it to this"
        return
    if all(m.options.get(option) == value for m in modules):
        files = sorted({k.file for m in modules for k in m.kernels if k.file})
        plan.line = f'wp.set_module_options({{"{option}": {new_text}}})'
        plan.where = "in the module options the program sets (" + ", ".join(files[:3]) + ")"


def _custom_plan(
    name: str, option: str, value: Any, report: ProbeReport, modules: list[ModuleIdentity], version: str
) -> LeverPlan:
    first = report.ok_samples[0]
    option_names = {n for m in modules for n in m.option_names} | {k for m in modules for k in m.options}
    plan = LeverPlan(name, f"{option}={value!r}", revert="delete that line")
    if option in option_names:
        plan.module_options = {option: value}
        plan.targets = [m.name for m in modules if m.options.get(option, object()) != value]
        plan.line = f"wp.set_module_options({{{option!r}: {value!r}}})"
        plan.where = "in each module's own file, before its first kernel"
    elif option in first.cold.warp_config:
        plan.config = {option: value}
        plan.targets = [m.name for m in modules]
        plan.line = f"wp.config.{option} = {value!r}"
        plan.where = _entry_where(report)
    else:
        plan.not_applicable = f"Warp {version} has no module option or wp.config value named `{option}`"
    return plan


# -- measuring -------------------------------------------------------------------------


def run_levers(
    argv: list[str],
    *,
    cwd: str | None = None,
    samples: int = 3,
    only: str | Sequence[str] | None = None,
    timeout: float | None = None,
    env: dict[str, str] | None = None,
    progress: Progress | None = None,
    announce: Announce | None = None,
    cancel: threading.Event | None = None,
) -> Ledger:
    """Measure the baseline, then each lever alone; see the module docstring.

    Samples are taken in rounds (the baseline, then each lever, once per round), so a machine
    that gets busier or quieter during the measurement shifts every row alike instead of
    favouring the levers measured in its quiet minutes.

    Raises what :func:`run_measure` raises for the first baseline sample (a failing or
    missing command, Warp missing, timeout) and :class:`ProbeCancelled` on cancel or Ctrl-C
    (children stopped, temp dirs removed). A lever whose runs fail becomes a ``failed`` row.
    """
    check_run_limits(samples, timeout)
    names = parse_only(only)
    report_progress = progress or (lambda _message, _fraction: None)
    say = announce or (lambda _message: None)
    most = len(names) if names else len(NAMED_LEVERS) + MAX_MODULE_LEVERS
    say(
        f"plan: baseline ({samples} sample{'s' if samples != 1 else ''} x 2 runs), then "
        + (", ".join(names) if names else "each lever the baseline shows to apply")
        + f" alone with as many samples, in rounds: at most {(1 + most) * samples * 2} runs of the command "
        "(the time estimate follows the first baseline sample)"
    )
    calls_done = 0
    calls_total = (1 + most) * samples

    def sample_of(label: str, lever: LeverPlan | None) -> ProbeReport:
        nonlocal calls_done

        def forward(message: str, fraction: float) -> None:
            # run_measure counts its one sample ("sample 1/1: cold run"): the label already says which.
            report_progress(f"{label}: {message.removeprefix('sample 1/1: ')}", min(1.0, (calls_done + fraction) / calls_total))

        try:
            return run_measure(
                argv, cwd=cwd, samples=1, timeout=timeout, env=env, progress=forward, cancel=cancel,
                lever=None if lever is None else lever.spec(),
            )  # fmt: skip
        finally:
            calls_done += 1

    first = sample_of(f"baseline sample 1/{samples}", None)
    plans, notes = plan_levers(first, names)
    to_run = [p for p in plans if p.not_applicable is None]
    skipped = [p for p in plans if p.not_applicable is not None]
    calls_total = (1 + len(to_run)) * samples
    say(
        f"levers to measure: {', '.join(p.name for p in to_run) or 'none'}"
        + (f" (not applicable: {', '.join(p.name for p in skipped)})" if skipped else "")
    )
    first_sample = first.samples[0]
    per_call = first_sample.cold.wall_s + (first_sample.warm.wall_s if first_sample.warm else 0.0)
    if calls_total > 1:
        say(
            f"estimate: {len(to_run)} lever{'s' if len(to_run) != 1 else ''} and the baseline x {samples} sample"
            f"{'s' if samples != 1 else ''} x 2 runs, about {_duration((calls_total - 1) * per_call)} more "
            f"(the first baseline sample took {per_call:.1f} s)"
        )

    collected: dict[str, list[ProbeReport]] = {"": [first]}
    failures: dict[str, str] = {}
    for round_index in range(samples):
        units: list[LeverPlan | None] = ([None] if round_index else []) + list(to_run)
        for plan in units:
            key = "" if plan is None else plan.name
            if key in failures and plan is not None:
                continue
            label = ("baseline" if plan is None else f"lever {to_run.index(plan) + 1}/{len(to_run)} {plan.name}") + (
                f" sample {round_index + 1}/{samples}"
            )
            try:
                collected.setdefault(key, []).append(sample_of(label, plan))
            except ProbeCancelled:
                raise
            except ProbeError as error:
                if plan is None:
                    notes.append(f"baseline sample {round_index + 1} failed: {error}")
                else:
                    failures[key] = str(error)
                say(f"{label}: failed: {error}")

    baseline = _merged(collected[""])
    metric = judged_metric(baseline)
    if metric != "compile_elapsed_s":
        summary = baseline.analysis.summary
        notes.append(
            f"the baseline's warm runs compiled about as much as its cold runs (compile elapsed "
            f"{_s(summary['compile_elapsed_s'].median)} of a {_s(summary['cold_wall_s'].median)} cold run: the "
            "kernel cache is not reused), so levers are judged on the cold wall time"
        )
        say(notes[-1])
    results: list[LeverResult] = []
    for plan in plans:
        if plan.not_applicable is not None:
            results.append(LeverResult(plan, "not applicable"))
            continue
        reports = collected.get(plan.name) or []
        if not reports:
            results.append(LeverResult(plan, "failed", error=failures.get(plan.name, "no sample ran")))
            continue
        result = _judge(plan, baseline, _merged(reports), metric)
        if plan.name in failures:
            result.error = f"sample {len(reports) + 1} failed: {failures[plan.name]}"
        results.append(result)
        say(f"{plan.name}: {_row_verdict(result)}" + (f", {result.figure()}" if result.relative is not None else ""))
    report_progress("done", 1.0)
    return Ledger(list(argv), baseline.cwd, samples, baseline, results, notes, metric)


def _merged(reports: list[ProbeReport]) -> ProbeReport:
    """One report of the one-sample reports of a lever (or the baseline), samples renumbered."""
    first = reports[0]
    samples = [replace(sample, index=index) for index, sample in enumerate(s for r in reports for s in r.samples)]
    notes = [n for r in reports for n in r.notes]
    return ProbeReport(command=first.command, cwd=first.cwd, samples=samples, created=first.created, tool=first.tool,
                       notes=list(dict.fromkeys(notes)))  # fmt: skip


def judged_metric(baseline: ProbeReport) -> str:
    """``compile_elapsed_s``, or ``cold_wall_s`` when the baseline's warm runs rebuilt everything."""
    summary = baseline.analysis.summary
    elapsed, cold = summary["compile_elapsed_s"].median, summary["cold_wall_s"].median
    if elapsed is not None and cold and elapsed < COMPILE_ELAPSED_FLOOR * cold:
        return "cold_wall_s"
    return "compile_elapsed_s"


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def _judge(plan: LeverPlan, baseline: ProbeReport, report: ProbeReport, metric: str = "compile_elapsed_s") -> LeverResult:
    """The lever's measurement against the baseline: `compare`'s topology check, band and floor."""
    try:
        comparison = compare_reports(baseline, report)
    except ReportError as error:
        return LeverResult(plan, "failed", error=str(error), report=report)
    cpu_metric = JUDGED_METRICS[metric][1]
    summary = report.analysis.summary
    result = LeverResult(
        plan,
        "measured",
        metric=metric,
        median_s=summary[metric].median,
        mad_s=summary[metric].mad,
        samples=summary[metric].n,
        cold_wall_s=summary["cold_wall_s"].median,
        generated_source_bytes=summary["generated_source_bytes"].median,
        topology_differences=comparison.topology_differences,
        report=report,
    )
    decision = decide(baseline, report, metric)
    if decision is None:
        return LeverResult(plan, "failed", error="no successful sample to compare", report=report)
    result.delta_s, result.band_s, result.floor_s = decision.delta, decision.band, decision.floor
    result.relative = decision.delta / decision.base_median if decision.base_median else None
    result.verdict = "invalid" if comparison.verdict == "invalid" else decision.verdict
    base_cpu = baseline.analysis.summary[cpu_metric].median
    result.cpu_median_s = summary[cpu_metric].median
    if result.cpu_median_s is not None and base_cpu:
        result.cpu_relative = (result.cpu_median_s - base_cpu) / base_cpu
    before = {module_match_key(m): m for m in baseline.analysis.modules}
    after = {module_match_key(m): m for m in report.analysis.modules}
    for name in plan.targets:
        module = next((m for m in baseline.analysis.modules if m.name == name), None)
        if module is None:
            continue
        key = module_match_key(module)
        if key in after and after[key].hashes == before[key].hashes:
            result.unmoved.append(name)
        else:
            result.moved.append(name)
    return result


def _row_verdict(result: LeverResult) -> str:
    if result.status != "measured":
        return result.status
    verdict = result.verdict or "?"
    if result.plan.unsafe:
        verdict += ", unsafe here"
    return verdict


# -- text ------------------------------------------------------------------------------


def render_ledger_text(ledger: Ledger) -> str:
    base = ledger.baseline.analysis.summary
    elapsed = base[ledger.metric]
    label = JUDGED_METRICS[ledger.metric][0]
    lines = [
        f"warp-ct probe levers: {' '.join(ledger.command)}",
        f"  baseline: {label} {_s(elapsed.median)} ± {_s(elapsed.mad)} over {elapsed.n} sample"
        f"{'s' if elapsed.n != 1 else ''}"
        + (f", cold wall {_s(base['cold_wall_s'].median)}" if ledger.metric != "cold_wall_s" else "")
        + f", generated source {_kib(base['generated_source_bytes'].median)}"
        + f"; Warp {', '.join(ledger.baseline.warp_versions) or 'not seen'}",
    ]
    few = [r for r in ledger.results if r.status == "measured" and r.few_samples and r.band_s is not None]
    if few:
        low, high = min(r.band_s for r in few), max(r.band_s for r in few)  # type: ignore[type-var]
        floor = f"{low:.2f} s" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}–{high:.2f} s"
        lines.append(f"  {few_samples_text(min([elapsed.n] + [r.samples for r in few]), floor)}")
    busy = _busy(ledger)
    if busy:
        lines.append(f"  warning: {busy_warning(busy)}")
    lines += [
        "",
        (
            "Ledger (compile elapsed = cold wall - warm wall, median ± MAD, judged with `probe compare`'s band;"
            if ledger.metric == "compile_elapsed_s"
            else "Ledger (cold wall, median ± MAD: the warm runs did not reuse the cache; `probe compare`'s band;"
        ),
        "        CPU = change of the command's CPU time beside it, steadier than wall time on a busy machine)",
        f"  {'lever':<28} {label:>17} {'change':>16} {'band':>8} {'CPU':>6}  {'verdict':<13} notes",
    ]
    for result in ledger.results:
        notes = _row_notes(result)
        if result.status == "measured":
            change = "-" if result.delta_s is None else f"{result.delta_s:+.2f} s {result.relative * 100 if result.relative is not None else 0:+.0f}%"
            band = "-" if result.band_s is None else f"±{result.band_s:.2f} s"
            cpu = "-" if result.cpu_relative is None else f"{result.cpu_relative * 100:+.0f}%"
            lines.append(
                f"  {result.name[:28]:<28} {_s(result.median_s):>8} ± {_s(result.mad_s):<6} {change:>16} {band:>8} {cpu:>6}  "
                f"{(result.verdict or '-'):<13} {notes}".rstrip()
            )
        else:
            reason = result.error or result.plan.not_applicable or ""
            lines.append(f"  {result.name[:28]:<28} {'':>17} {'':>16} {'':>8} {'':>6}  {result.status:<13} {reason}".rstrip())

    # Only a measured improvement gets a line to write; the rest keep what was learned.
    measured = [r for r in ledger.results if r.status == "measured"]
    improved = [r for r in measured if r.verdict == "improved"]
    others = [r for r in measured if r.verdict != "improved"]
    if improved:
        lines += ["", "What to write (each lever alone; apply one, then re-measure)"]
    elif measured:
        lines += ["", "Nothing to write: no lever was a measured improvement"]
    for result in improved:
        lines += _lever_details(result, ledger, write=True)
    if others:
        lines += ["", "Other levers measured (no line to write: not a measured improvement)"]
    for result in others:
        lines += _lever_details(result, ledger, write=False)
    if ledger.notes:
        lines += ["", "Notes"] + [f"  - {note}" for note in ledger.notes]
    return "\n".join(lines) + "\n"


def _lever_details(result: LeverResult, ledger: Ledger, *, write: bool) -> list[str]:
    plan = result.plan
    head = f"  {plan.name}: {plan.title} — {_row_verdict(result)}"
    if result.relative is not None:
        head += f", {result.figure()}"
    lines = [head]
    if plan.unsafe:
        lines.append(f"    UNSAFE HERE: {plan.unsafe}; with backward code off, tape.backward() skips those kernels "
                     "and their gradients silently stay zero")  # fmt: skip
    if plan.changes_numerics:
        lines.append("    changes numerics: measured, not recommended without asking")
    if plan.runtime_cost:
        lines.append(f"    runtime cost: {plan.runtime_cost}")
    base_source = ledger.baseline.analysis.summary["generated_source_bytes"].median
    if base_source is not None and result.generated_source_bytes is not None:
        lines.append(f"    generated source {_kib(base_source)} -> {_kib(result.generated_source_bytes)}")
    if write:
        lines.append(f"    write: {plan.line}")
        lines.append(f"    where: {plan.where}")
        lines.append(f"    revert: {plan.revert}")
    if result.unmoved and not result.moved:
        lines.append("    no targeted module changed its hash: the option never arrived (set elsewhere after import?)")
    for difference in result.topology_differences[:4]:
        lines.append(f"    launches changed: {difference}")
    return lines


def _busy(ledger: Ledger) -> list[str]:
    """The busy samples of the baseline and of each lever, named."""
    out = [f"baseline {entry}" for entry in ledger.baseline.analysis.busy]
    for result in ledger.results:
        if result.report is not None:
            out += [f"{result.name} {entry}" for entry in result.report.analysis.busy]
    return out


def _kib(value: float | None) -> str:
    if value is None:
        return "-"
    kib = value / 1024
    return f"{kib:.1f} KiB" if kib < 10 else f"{kib:.0f} KiB"


def _row_notes(result: LeverResult) -> str:
    plan = result.plan
    out = []
    if plan.unsafe:
        out.append("UNSAFE HERE (gradients)")
    if plan.changes_numerics:
        out.append("changes numerics")
    if plan.runtime_cost:
        out.append("slower kernels")
    if result.verdict == "invalid":
        out.append("launches changed")
    if result.status == "measured" and result.unmoved and not result.moved:
        out.append("no hash moved")
    if result.cpu_disagrees:
        out.append("CPU time disagrees: noise? more samples")
    return "; ".join(out)


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} s"
