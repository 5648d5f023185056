"""Fast tests without Warp: which levers a measured program gets, and modules matched by kernels."""

from __future__ import annotations

from warp_ct.probe.compare import changed_module_identities
from warp_ct.probe.levers import LeverPlan, LeverResult, parse_only, plan_levers
from warp_ct.probe.records import ConfigAssignment, KernelSource, LaunchSignature, ModuleLoad, TapedKernel
from warp_ct.probe.report import ProbeReport, RunResult, SampleResult

_NAMES = ("enable_backward", "max_unroll", "mode", "fast_math", "lineinfo", "optimization_level")


def _load(module: str, kernel: str, hash_: str = "aa", file: str = "/app/sim.py", **options) -> ModuleLoad:
    resolved = {"enable_backward": True, "max_unroll": 16, "mode": None, "fast_math": False, "lineinfo": False,
                "optimization_level": None, **options}  # fmt: skip
    return ModuleLoad(
        module, hash_, "cpu", 1, 0.1, 500.0, "compiled", 400.0, 1,
        kernels=(KernelSource(kernel, file, 10),), options=resolved, option_names=_NAMES,
        config={"mode": "release", "optimization_level": None, "use_precompiled_headers": True},
    )  # fmt: skip


def _report(loads, launches=(), taped=(), assignments=(), warm_wall=1.0) -> ProbeReport:
    cold = RunResult("cold", 0, 5.0, loads=list(loads), launches=list(launches), taped=list(taped),
                     config_assignments=list(assignments),
                     warp_config={"enable_backward": True, "max_unroll": 16, "use_precompiled_headers": True,
                                  "mode": "release", "optimization_level": None, "lineinfo": False})  # fmt: skip
    warm = RunResult("warm", 0, warm_wall, launches=list(launches))
    return ProbeReport(command=["python", "app.py"], cwd="/app", samples=[SampleResult(0, cold, warm)])


def _by_name(plans: list[LeverPlan]) -> dict[str, LeverPlan]:
    return {p.name: p for p in plans}


def test_two_modules_with_backward_get_a_lever_each_and_a_taped_one_is_unsafe():
    report = _report(
        [_load("app.solver", "solve"), _load("app.render", "shade", file="/app/render.py")],
        taped=[TapedKernel("solve", "app.solver", 3)],
    )
    plans = _by_name(plan_levers(report)[0])
    assert {"backward", "backward:app.solver", "backward:app.render"} <= set(plans)
    assert plans["backward"].unsafe and "`app.solver`" in plans["backward"].unsafe
    assert plans["backward:app.solver"].unsafe and plans["backward:app.render"].unsafe is None
    render = plans["backward:app.render"]
    assert render.modules == ["app.render"] and render.module_options == {"enable_backward": False}
    assert render.line == 'wp.set_module_options({"enable_backward": False})' and render.where.startswith("in render.py, ")
    # Nothing turned precompiled headers off or set debug options: those levers do not apply.
    assert plans["precompiled-headers"].not_applicable and plans["release-mode"].not_applicable
    assert plans["fast-math"].changes_numerics and plans["fast-math"].not_applicable is None


def test_debug_options_the_program_set_point_at_its_line():
    report = _report(
        [_load("__main__", "k", mode="debug", lineinfo=True)],
        assignments=[ConfigAssignment("mode", "debug", "/app/app.py", 4),
                     ConfigAssignment("kernel_cache_dir", "/x", "/site-packages/warp/_src/build.py", 9)],
    )  # fmt: skip
    plans = _by_name(plan_levers(report)[0])
    assert plans["release-mode"].not_applicable is None and plans["release-mode"].where.startswith("at app.py:4,")
    assert plans["lineinfo"].not_applicable is None
    assert plans["lineinfo"].line == 'wp.set_module_options({"lineinfo": False})'  # set as a module option


def test_library_modules_and_unique_modules_get_their_own_lines():
    unique = _load("step_0123abcd", "step", file="/app/kernels.py")
    library = _load("solverlib.core", "integrate", file="/venv/lib/python3.11/site-packages/solverlib/core.py")
    plans = _by_name(plan_levers(_report([unique, library]))[0])
    assert plans["backward:step_0123abcd"].line == '@wp.kernel(enable_backward=False, module="unique")'
    assert plans["backward:solverlib.core"].line == 'wp.get_module("solverlib.core").options["enable_backward"] = False'
    assert "other users may need gradients" in plans["backward:solverlib.core"].where


def test_only_selects_and_unknown_options_are_not_applicable():
    report = _report([_load("__main__", "k")])
    plans, _notes = plan_levers(report, parse_only(["backward:nowhere,no_such_option=1", "max_unroll=2"]))
    assert [p.name for p in plans] == ["backward:nowhere", "no_such_option=1", "max_unroll=2"]
    assert "not loaded" in plans[0].not_applicable and "no module option" in plans[1].not_applicable
    assert plans[2].module_options == {"max_unroll": 2} and plans[2].not_applicable is None


def test_a_wall_time_verdict_the_cpu_time_contradicts_is_flagged():
    plan = LeverPlan("max-unroll", "max_unroll=4")
    assert LeverResult(plan, "measured", verdict="improved", cpu_relative=0.03).cpu_disagrees
    assert not LeverResult(plan, "measured", verdict="improved", cpu_relative=-0.4).cpu_disagrees
    assert not LeverResult(plan, "measured", verdict="inconclusive", cpu_relative=0.03).cpu_disagrees


def test_compare_matches_unique_modules_by_their_kernels():
    launch = LaunchSignature("fill", "fill_11111111", (8,), "cpu", ("float32",), 1, False, 1)
    base = _report([_load("fill_11111111", "fill", "h1"), _load("__main__", "k", "h2")], [launch])
    renamed = _report([_load("fill_22222222", "fill", "h3"), _load("__main__", "k", "h2")], [launch])
    (line,) = changed_module_identities(base, renamed)
    assert "fill_11111111 -> fill_22222222" in line and "h1 -> h3" in line
    assert changed_module_identities(base, base) == []


def test_confirm_prefers_the_module_s_own_lever_and_says_when_it_is_unsafe():
    from warp_ct.analyzer.model import Finding, Range, Severity
    from warp_ct.confirm import attach_lever_figures
    from warp_ct.probe.levers import Ledger

    report = _report([_load("app.solver", "solve", file="/app/solver.py"), _load("app.render", "shade", file="/app/render.py")],
                     taped=[TapedKernel("solve", "app.solver", 1)])  # fmt: skip
    plans = _by_name(plan_levers(report)[0])
    results = [
        LeverResult(plans["backward"], "measured", verdict="improved", relative=-0.5, samples=3),
        LeverResult(plans["backward:app.solver"], "measured", verdict="improved", relative=-0.62, samples=3),
        LeverResult(plans["backward:app.render"], "not applicable"),
    ]
    ledger = Ledger(["python", "app.py"], "/app", 3, report, results)
    solver = Finding("WCT010", "/app/solver.py", Range.from_coords(9, 0, 9, 5), "backward for `solve`", Severity.WARNING)
    (with_figure,) = attach_lever_figures([solver], ledger)
    (evidence,) = with_figure.evidence
    assert evidence.summary.startswith("measured: backward code off for this module, -62% compile elapsed (improved), 3 samples")
    assert "unsafe here" in evidence.summary and "wp.Tape" in evidence.summary
    unrelated = Finding("WCT003", "/app/solver.py", Range.from_coords(9, 0, 9, 5), "per call", Severity.WARNING)
    assert attach_lever_figures([unrelated], ledger)[0].evidence == ()


def test_a_program_that_loads_no_module_gets_no_lever():
    plans, _notes = plan_levers(_report([]))
    assert plans and all(p.not_applicable == "the baseline loaded no Warp module" for p in plans)


def test_a_baseline_whose_warm_run_rebuilds_is_judged_on_cold_wall():
    from warp_ct.probe.levers import judged_metric

    assert judged_metric(_report([_load("__main__", "k")], warm_wall=1.0)) == "compile_elapsed_s"
    assert judged_metric(_report([_load("__main__", "k")], warm_wall=4.9)) == "cold_wall_s"


def _measured(elapsed: float, source_bytes: int, cpu: float | None = None, warm_wall: float = 1.0) -> ProbeReport:
    """A one-sample report whose compile elapsed is ``elapsed`` (cold wall - warm wall)."""
    from warp_ct.probe.samples import CacheScan

    launch = LaunchSignature("k", "__main__", (8,), "cpu", ("float32",), 1, False, 1)
    cold = RunResult("cold", 0, warm_wall + elapsed, loads=[_load("__main__", "k")], launches=[launch],
                     cpu_s=None if cpu is None else 0.5 + cpu)  # fmt: skip
    warm = RunResult("warm", 0, warm_wall, launches=[launch], cpu_s=None if cpu is None else 0.5)
    return ProbeReport(["python", "app.py"], "/app", [SampleResult(0, cold, warm, CacheScan(source_bytes))])


def test_one_sample_is_inconclusive_below_a_floor_and_only_an_improvement_gets_a_line_to_write():
    from warp_ct.confirm import _lever_figure
    from warp_ct.probe.levers import Ledger, _judge, render_ledger_text

    baseline = _measured(10.0, 48 * 1024)
    plans = _by_name(plan_levers(baseline)[0])
    wobble = _judge(plans["max-unroll"], baseline, _measured(10.2, 47 * 1024))
    backward = _judge(plans["backward"], baseline, _measured(4.0, 19 * 1024))
    # +2% on one sample: a band of 1% of the baseline (0.10 s) called it a regression.
    assert (wobble.verdict, wobble.band_s, wobble.floor_s) == ("inconclusive", 2.0, 2.0)
    assert backward.verdict == "improved" and backward.generated_source_bytes == 19 * 1024
    text = render_ledger_text(Ledger(["python", "app.py"], "/app", 1, baseline, [wobble, backward]))
    assert "  1 sample: inconclusive below ±2.00 s; run with --samples 3\n" in text
    write, others = text.split("What to write")[1].split("Other levers measured")
    assert "backward: enable_backward=False" in write and "write: wp.config.enable_backward = False" in write
    assert "generated source 48 KiB -> 19 KiB" in write
    assert "— inconclusive, +2% compile elapsed, 1 sample: within the ±2.00 s noise band\n" in others
    assert "generated source 48 KiB -> 47 KiB" in others and "    write:" not in others
    assert "warning" not in text  # no CPU times recorded: nothing says the machine was busy
    alone = render_ledger_text(Ledger(["python", "app.py"], "/app", 1, baseline, [wobble]))
    assert "What to write" not in alone and "Nothing to write: no lever was a measured improvement" in alone
    # confirm: no "regression" on a one-sample wobble.
    figure = _lever_figure(wobble, "a lower max_unroll", "for the whole process")
    assert figure.startswith("measured: a lower max_unroll for the whole process, +2% compile elapsed, inconclusive (1 sample)")
    assert "regression" not in figure and "--samples 3" in figure
    assert _lever_figure(backward, "backward code off", "for the whole process").endswith("-60% compile elapsed (improved), 1 sample")


def test_a_compile_starved_of_cpu_warns_that_the_machine_was_busy():
    from warp_ct.probe.levers import Ledger, _judge, render_ledger_text
    from warp_ct.probe.text import render_text

    quiet, busy = _measured(10.0, 1024, cpu=9.0), _measured(10.0, 1024, cpu=3.0)
    assert quiet.analysis.busy == [] and "warning" not in render_text(quiet)
    assert busy.analysis.busy == ["sample 1: 3.00 s of CPU in 10.00 s"]
    text = render_text(busy)
    assert "  warning: the machine was busy: compiling got less than half a CPU (sample 1: 3.00 s of CPU in 10.00 s)" in text
    assert text.count("the machine was busy") == 1  # not repeated under Notes
    assert any("the machine was busy" in note for note in busy.to_json_dict()["notes"])
    # Not judged where compilation is a small part of the run (a program that mostly sleeps).
    assert _measured(1.0, 1024, cpu=0.1, warm_wall=5.0).analysis.busy == []
    plans = _by_name(plan_levers(quiet)[0])
    ledger = Ledger(["python", "app.py"], "/app", 1, quiet, [_judge(plans["backward"], quiet, busy)])
    assert "warning: the machine was busy: compiling got less than half a CPU (backward sample 1: " in render_ledger_text(ledger)


def test_a_version_1_ledger_is_still_read():
    import json

    from warp_ct.probe.levers import Ledger, _judge

    baseline = _measured(10.0, 2048)
    plans = _by_name(plan_levers(baseline)[0])
    row = _judge(plans["backward"], baseline, _measured(4.0, 1024))
    data = json.loads(json.dumps(Ledger(["python", "app.py"], "/app", 1, baseline, [row]).to_json_dict()))
    assert data["schema_version"] == 2
    data["schema_version"] = 1
    del data["baseline_generated_source_bytes"]
    for row in data["levers"]:
        del row["noise_floor_s"], row["generated_source_bytes"]
    (row,) = Ledger.from_json_dict(data).results
    assert row.verdict == "improved" and row.floor_s is None and row.generated_source_bytes is None
