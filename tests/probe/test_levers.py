"""probe levers on real Warp programs (device "cpu", nothing mocked), one sample each.

On a loaded 2-core machine a single cold run's wall time swings by tens of percent, so
the timing assertions use what stays put: the command's CPU time, the generated source,
module hashes and launch topology. The wall-time verdict is checked to be a measured,
valid one; its size is in the ledger (see the closing note of issue 12).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest

from tests.probe.conftest import ROOT
from warp_ct.probe.isolation import TEMP_PREFIX
from warp_ct.probe.html import render_levers_html
from warp_ct.probe.levers import Ledger, render_ledger_text, run_levers

pytestmark = [pytest.mark.warp, pytest.mark.usefixtures("no_leaked_temp_dirs")]

PROGRAMS = Path(__file__).resolve().parent / "programs"
SCHEMA = json.loads((ROOT / "warp_ct/probe/levers.schema.json").read_text())
_ledgers: dict[tuple[str, ...], Ledger] = {}


def ledger_for(script: str, *args: str, only: str) -> Ledger:
    key = (script, *args, only)
    if key not in _ledgers:
        _ledgers[key] = run_levers([sys.executable, str(PROGRAMS / script), *args], cwd=str(ROOT), samples=1, only=only)
    return _ledgers[key]


def test_forward_only_program_backward_lever_improves():
    ledger = ledger_for("forward_kernels.py", only="backward")
    (result,) = ledger.results
    assert result.status == "measured" and result.plan.unsafe is None
    assert result.verdict in ("improved", "inconclusive", "regression"), result.topology_differences
    assert result.moved == ["__main__"] and result.unmoved == []
    # Six kernels without their adjoints: far less code generated and compiled.
    base_source = ledger.baseline.samples[0].cache.generated_source_bytes
    lever_source = result.report.samples[0].cache.generated_source_bytes
    assert lever_source < 0.7 * base_source, (lever_source, base_source)
    # CPU time moves far less than wall time with the machine's load, but the fixed costs
    # (import, the precompiled header) dilute it: the source shrinking is the strict check.
    assert result.cpu_relative is not None and result.cpu_relative < -0.10, result.to_dict()
    assert (result.report.analysis.modules[0].options["enable_backward"], ledger.baseline.analysis.modules[0].options["enable_backward"]) == (False, True)
    assert result.plan.line == "wp.config.enable_backward = False"
    assert "entry point" in result.plan.where and "before importing" in result.plan.where
    assert result.plan.revert


def test_the_same_program_with_a_tape_makes_the_lever_unsafe():
    ledger = ledger_for("forward_kernels.py", "tape", only="backward")
    (result,) = ledger.results
    assert result.plan.unsafe and "`__main__`" in result.plan.unsafe and "wp.Tape" in result.plan.unsafe
    # Without backward code tape.backward() skips every kernel (Warp warns, gradients stay 0):
    # the adjoint launches are gone, so the timing is not a comparison of the same work.
    assert result.verdict == "invalid"
    assert any("adjoint" in d and "gone" in d for d in result.topology_differences)
    text = render_ledger_text(ledger)
    assert "UNSAFE HERE" in text and "silently stay zero" in text


def test_a_program_that_turns_precompiled_headers_off_gains_from_them():
    ledger = ledger_for("no_pch_modules.py", only="precompiled-headers,backward")
    pch, backward = ledger.results
    assert backward.status == "not applicable" and "no module built backward" in backward.plan.not_applicable
    assert pch.status == "measured" and pch.verdict != "invalid"
    # Six modules each parsing Warp's headers vs one header reused: most of the CPU time goes.
    assert pch.cpu_relative is not None and pch.cpu_relative < -0.2, pch.to_dict()
    assert pch.plan.where.startswith("at tests/probe/programs/no_pch_modules.py:10,"), pch.plan.where
    assert pch.plan.line == "wp.config.use_precompiled_headers = True"
    # The program's own assignment was recorded and held off while the lever ran.
    (assignment,) = [a for a in pch.report.samples[0].cold.config_assignments if a.name == "use_precompiled_headers"]
    assert assignment.ignored and assignment.value is False and assignment.line == 10


def test_confirm_attaches_the_lever_figure_to_the_finding_it_concerns(tmp_path):
    from warp_ct.analyzer.model import Finding, Range, Severity
    from warp_ct.confirm import attach_lever_figures

    ledger = ledger_for("forward_kernels.py", only="backward")
    finding = Finding("WCT010", str(PROGRAMS / "forward_kernels.py"), Range.from_coords(29, 0, 29, 10),
                      "backward code is compiled for `stage_a`", Severity.WARNING)  # fmt: skip
    (with_figure,) = attach_lever_figures([finding], ledger)
    (evidence,) = with_figure.evidence
    result = ledger.result("backward")
    assert evidence.module == "__main__"
    figure = f"measured: backward code off for the whole process, {result.relative * 100:+.0f}% compile elapsed"
    if result.verdict == "inconclusive":  # one sample: within its noise floor, no verdict
        figure += f", inconclusive (1 sample): below ±{result.band_s:.2f} s; run `probe levers --samples 3`"
    else:
        figure += f" ({result.verdict}), 1 sample"
    assert evidence.summary == figure + ("; CPU time disagrees (a busy machine?)" if result.cpu_disagrees else "")

    # Through the CLI with the real linter: WCT012 on the line that turns the headers off.
    pch_ledger = ledger_for("no_pch_modules.py", only="precompiled-headers,backward")
    path = tmp_path / "ledger.json"
    path.write_text(json.dumps(pch_ledger.to_json_dict()))
    cli = subprocess.run(
        [sys.executable, "-m", "warp_ct", "confirm", "--json", str(path), "--format", "json",
         str(PROGRAMS / "no_pch_modules.py")],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert cli.returncode == 1, cli.stderr
    (pch_finding,) = [f for f in json.loads(cli.stdout)["findings"] if f["code"] == "WCT012"]
    figures = [e["summary"] for e in pch_finding["evidence"] if "precompiled headers back on" in e["summary"]]
    assert figures and figures[0].startswith("measured: precompiled headers back on for the whole process, ")


def test_an_option_this_warp_lacks_is_not_applicable_and_json_matches_the_schema(tmp_path):
    out = tmp_path / "ledger.json"
    page = tmp_path / "ledger.html"
    cli = subprocess.run(
        [sys.executable, "-m", "warp_ct", "probe", "levers", "--samples", "1", "--only", "frobnicate=3,max-unroll",
         "--json", str(out), "--html", str(page), "--", sys.executable, str(ROOT / "examples/probe/clean.py")],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    assert "plan:" in cli.stderr and "levers to measure" in cli.stderr and "Traceback" not in cli.stderr
    data = json.loads(out.read_text())
    jsonschema.validate(data, SCHEMA)
    report_schema = json.loads((ROOT / "warp_ct/probe/report.schema.json").read_text())
    jsonschema.validate(data["baseline"], report_schema)
    frobnicate, unroll = data["levers"]
    assert frobnicate["status"] == "not applicable" and "no module option or wp.config value" in frobnicate["not_applicable"]
    assert frobnicate["report"] is None
    # clean.py's kernels have no loops: max_unroll arrives (new hash) but there is nothing to unroll
    assert unroll["status"] == "measured" and unroll["moved"] == ["__main__"]
    # One sample: the band is at least the few-samples floor (a fifth of the baseline).
    assert unroll["noise_floor_s"] >= 0.2 * data["baseline_median_s"] - 1e-3
    assert unroll["band_s"] >= unroll["noise_floor_s"] and "1 sample: inconclusive below ±" in cli.stdout
    assert unroll["generated_source_bytes"] > 0 and data["baseline_generated_source_bytes"] > 0
    assert re.search(r"\n    generated source [\d.]+ KiB -> [\d.]+ KiB\n", cli.stdout), cli.stdout
    jsonschema.validate(unroll["report"], report_schema)
    assert "frobnicate=3" in cli.stdout and "not applicable" in cli.stdout
    ledger = Ledger.from_json_dict(data)
    assert json.loads(json.dumps(ledger.to_json_dict()))["levers"] == data["levers"]
    html = page.read_text()
    assert 'aria-label="compile time per lever"' in html and 'aria-label="module build timeline"' in html
    assert "<script" not in html and render_levers_html(ledger).count("<svg") >= 2


def test_unknown_lever_name_is_a_usage_error():
    cli = subprocess.run(
        [sys.executable, "-m", "warp_ct", "probe", "levers", "--only", "turbo", "--", sys.executable, "-c", "pass"],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert cli.returncode == 2 and "unknown lever 'turbo'" in cli.stderr and "Traceback" not in cli.stderr


_SLEEPS_UNDER_A_LEVER = """
import os, sys, time
import warp as wp

@wp.kernel
def bump(a: wp.array(dtype=float)):
    a[wp.tid()] += 1.0

wp.launch(bump, dim=4, inputs=[wp.zeros(4, dtype=float, device="cpu")], device="cpu")
wp.synchronize()
if os.environ.get("WARP_CT_PROBE_LEVER"):
    open(sys.argv[1], "w").write(str(os.getpid()))
    time.sleep(60)
"""


def test_ctrl_c_during_a_lever_stops_it_and_leaves_nothing(tmp_path, no_leaked_temp_dirs):
    script = tmp_path / "sleepy.py"
    script.write_text(_SLEEPS_UNDER_A_LEVER)
    pid_file = tmp_path / "lever-child.pid"
    cli = subprocess.Popen(
        [sys.executable, "-m", "warp_ct", "probe", "levers", "--samples", "1", "--only", "backward", "--",
         sys.executable, str(script), str(pid_file)],
        cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as from a terminal
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while not pid_file.exists() or not pid_file.read_text():
        assert cli.poll() is None, cli.communicate()
        assert time.monotonic() < deadline, "the lever run never started"
        time.sleep(0.1)
    cli.send_signal(signal.SIGINT)
    out, err = cli.communicate(timeout=30)
    assert cli.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err and out == ""
    _assert_dead(int(pid_file.read_text()))
    assert [p.name for p in no_leaked_temp_dirs.iterdir() if p.name.startswith(TEMP_PREFIX)] == []


def _assert_dead(pid: int) -> None:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        try:
            if Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
                return
        except OSError:
            return
        time.sleep(0.1)
    raise AssertionError(f"process {pid} survived")
