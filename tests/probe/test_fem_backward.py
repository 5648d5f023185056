"""Issue 37 item 2: warp.fem builds the user's integrands with backward code that no tape
records; the probe measures it as WCT010 at the user's fem.integrate / fem.interpolate call,
and `confirm` joins it with the static WCT010 at the same call.

A real warp.fem program on device "cpu" (the fixture tests/programs/fem_untaped_integrands,
copied into tmp_path), nothing mocked.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from warp_ct.probe.measure import run_measure
from warp_ct.probe.text import render_text

pytestmark = pytest.mark.warp

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests/programs/fem_untaped_integrands"
MAIN = "heat/__main__.py"
INTERPOLATE, INTEGRATE, TAPED = 17, 22, 38  # the calls' lines in heat/__main__.py


def _confirm(report, tmp_path: Path, cwd: Path, target: str) -> dict:
    """``warp-ct confirm --format json`` of ``target`` against ``report``, run in ``cwd``."""
    report_path = tmp_path / "report.json"
    report_path.write_text(json.dumps(report.to_json_dict()))
    result = subprocess.run(
        [sys.executable, "-m", "warp_ct", "confirm", "--json", str(report_path), "--format", "json", target],
        cwd=cwd, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


def test_fem_calls_outside_tapes_are_measured_at_the_call_and_confirmed(tmp_path):
    project = tmp_path / "project"
    shutil.copytree(FIXTURE, project, ignore=shutil.ignore_patterns("__pycache__", "fixture.toml"))
    lines = (project / MAIN).read_text().splitlines()
    assert "fem.interpolate(" in lines[INTERPOLATE - 1] and "fem.integrate(" in lines[INTEGRATE - 1]
    assert "fem.integrate(" in lines[TAPED - 1]
    report = run_measure([sys.executable, "-m", "heat"], cwd=str(project), samples=1)
    assert report.ok_samples, report.samples[0].cold.stderr_tail

    measured = [f for f in report.findings if f["code"] == "WCT010"]
    # heat/rhs.py:19 is a linear form's call whose dispatch kernel keeps backward code although
    # the module turns it off for its integrands: one more call, joined like the others
    assert sorted((f["path"], f["location"]["line"]) for f in measured) == [
        (MAIN, INTERPOLATE), (MAIN, INTEGRATE), ("heat/rhs.py", 19)]
    interpolate, integrate = sorted((f for f in measured if f["path"] == MAIN), key=lambda f: f["location"]["line"])
    assert "`fem.interpolate`" in interpolate["message"] and "inside `warp.fem` (`interpolate`)" in interpolate["message"]
    assert 'kernel_options={"enable_backward": False}' in integrate["message"] and "up to" in integrate["message"]
    # the integrand's module (named after the user's module) and the dispatch module the call's
    # options reach; not the taped integrand (its adjoint ran), not warp.fem's shared modules
    modules = integrate["evidence"][0]["modules"]
    assert any(m.startswith("heat.forms.diffusion_form_") for m in modules)
    assert any(m.startswith("warp._src.fem.field.virtual.dyn.dispatch_") for m in modules) and len(modules) == 2
    assert [m.startswith("heat.forms.initial_temperature_") for m in interpolate["evidence"][0]["modules"]] == [True]
    assert integrate["evidence"][0]["upper_bound"] is True
    assert not any("energy_form" in f["message"] for f in report.findings)
    note = next(n for n in report.analysis.notes if "built with backward (adjoint) code" in n)
    assert "`warp.fem.utils`" in note and "heat.forms" not in note
    text = render_text(report)
    assert "site-packages" not in text.split("Measured findings")[1].split("Notes")[0]

    payload = _confirm(report, tmp_path, project, ".")
    static = [f for f in payload["findings"] if f["code"] == "WCT010"]
    assert sorted((f["path"], f["range"]["start"]["line"] + 1) for f in static) == [
        (MAIN, INTERPOLATE), (MAIN, INTEGRATE), ("heat/rhs.py", 19)]
    for finding in static:
        assert finding["status"] == "confirmed", finding
        assert [m["line"] for m in finding["measured"]] == [finding["range"]["start"]["line"] + 1]
    assert not [m for m in payload.get("missed", []) if m.get("code") == "WCT010"]


TWO_CALLS = '''import warp as wp
import warp.fem as fem


@fem.integrand
def doubled(s: fem.Sample, field: fem.Field):
    return 2.0 * field(s)


@wp.kernel
def scale(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    y[wp.tid()] = 0.5 * x[wp.tid()]


def main():
    wp.set_device("cpu")
    space = fem.make_polynomial_space(fem.Grid2D(res=wp.vec2i(2)), degree=1)
    field = fem.make_discrete_field(space=space)
    out = fem.make_discrete_field(space=space)
    x = wp.ones(4, dtype=float, requires_grad=True)
    y = wp.zeros(4, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(scale, dim=4, inputs=[x, y])
    tape.backward(grads={y: wp.ones(4, dtype=float)})
    fem.interpolate(
        doubled,
        dest=out,
        fields={"field": field},
    )
    fem.interpolate(
        doubled,
        dest=field,
        fields={"field": out},
    )


main()
'''


def test_calls_sharing_one_integrand_kernel_are_all_confirmed(tmp_path):
    # Two calls build one kernel (same integrand, same kinds of fields): the probe places its
    # measurement at one of them; the other joins by the kernel its call names on the line
    # after ``fem.interpolate(``, in the module named after the file's (not by the file's own
    # module, whose kernel a tape differentiates).
    (tmp_path / "two_calls.py").write_text(TWO_CALLS)
    report = run_measure([sys.executable, "two_calls.py"], cwd=str(tmp_path), samples=1)
    assert report.ok_samples, report.samples[0].cold.stderr_tail
    static = [f for f in _confirm(report, tmp_path, tmp_path, "two_calls.py")["findings"] if f["code"] == "WCT010" and "fem.interpolate" in f["message"]]
    assert sorted(f["range"]["start"]["line"] + 1 for f in static) == [26, 31]
    assert [f["status"] for f in static] == ["confirmed", "confirmed"], static
