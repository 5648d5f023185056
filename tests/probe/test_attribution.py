"""Attribution: why each rebuild happened, as measured findings at the user's line.

Real Warp programs on device "cpu" (nothing mocked), written into tmp_path and measured
with the probe: the bootstrap's ``cause`` records become findings of the static rules.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest

from warp_ct.analyzer.rules.base import DOCS_URL as LINT_DOCS_URL
from warp_ct.probe import findings as measured
from warp_ct.probe.measure import run_measure
from warp_ct.probe.text import render_text

pytestmark = pytest.mark.warp

ROOT = Path(__file__).resolve().parents[2]

OPTIONS_AFTER_LAUNCH = """\
import warp as wp

@wp.kernel
def scale(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * 2.0

def step(a):
    wp.launch(scale, dim=a.shape[0], inputs=[a], device="cpu")

a = wp.zeros(8, dtype=float, device="cpu")
step(a)
wp.set_module_options({"enable_backward": False})
step(a)
"""

KERNEL_AFTER_LOAD = """\
import warp as wp

@wp.kernel
def first(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0

a = wp.zeros(8, dtype=float, device="cpu")
wp.launch(first, dim=8, inputs=[a], device="cpu")

@wp.kernel
def second(a: wp.array(dtype=float)):
    a[wp.tid()] = 2.0

wp.launch(second, dim=8, inputs=[a], device="cpu")
"""

GENERIC_LATE_TYPES = """\
from typing import Any

import warp as wp

@wp.kernel
def fill(a: wp.array(dtype=Any), v: Any):
    a[wp.tid()] = v

a = wp.zeros(8, dtype=wp.float32, device="cpu")
wp.launch(fill, dim=8, inputs=[a, wp.float32(1.0)], device="cpu")
b = wp.zeros(8, dtype=wp.float64, device="cpu")
wp.launch(fill, dim=8, inputs=[b, wp.float64(2.0)], device="cpu")
"""

UNIQUE_MODULES = """\
import warp as wp

@wp.kernel(module="unique")
def double(a: wp.array(dtype=float)):
    a[wp.tid()] = a[wp.tid()] * 2.0

@wp.kernel(module="unique")
def negate(a: wp.array(dtype=float)):
    a[wp.tid()] = -a[wp.tid()]

def make(c: float):
    @wp.kernel(module="unique")
    def add(a: wp.array(dtype=float)):
        a[wp.tid()] = a[wp.tid()] + c
    return add

a = wp.zeros(8, dtype=float, device="cpu")
wp.launch(double, dim=8, inputs=[a], device="cpu")
wp.launch(negate, dim=8, inputs=[a], device="cpu")
wp.launch(make(1.0), dim=8, inputs=[a], device="cpu")
wp.launch(make(2.0), dim=8, inputs=[a], device="cpu")
"""


def _measure(tmp_path: Path, name: str, source: str):
    program = tmp_path / name
    if not program.exists():
        program.write_text(source)
    report = run_measure([sys.executable, str(program)], cwd=str(tmp_path), samples=1)
    assert report.ok_samples, report.samples[0].cold.stderr_tail
    return report


def _placed(report):
    return [(f["code"], f["path"], f["location"]["line"]) for f in report.findings]


def test_options_changed_after_a_launch_is_wct006_at_the_set_module_options_line(tmp_path):
    report = _measure(tmp_path, "options_late.py", OPTIONS_AFTER_LAUNCH)
    assert _placed(report) == [("WCT006", "options_late.py", 13)]
    (finding,) = report.findings
    assert finding["origin"] == "measured" and finding["name"] == "options-after-load"
    assert "`enable_backward`" in finding["message"] and "built 2× (2 hashes)" in finding["message"]
    assert "line 9 (`step`)" in finding["message"]
    assert finding["range"]["start"] == {"line": 12, "character": 0}
    assert finding["evidence"][0]["module"] == "__main__" and finding["evidence"][0]["distinct_hashes"] == 2
    (module,) = report.analysis.modules
    (cause,) = module.causes
    assert cause.cause == "options" and cause.detail["options"] == {"enable_backward": False}
    assert [(f.line, f.function) for f in cause.frames] == [(13, "<module>")]
    assert [(f.line, f.function) for f in cause.load_frames] == [(9, "step"), (14, "<module>")]
    assert "WCT006 [options-after-load]" in render_text(report)

    # the JSON report carries them, valid against the schema, and the same program measured
    # again gives the same findings
    schema = json.loads((ROOT / "warp_ct/probe/report.schema.json").read_text())
    data = json.loads(json.dumps(report.to_json_dict()))
    jsonschema.validate(data, schema)
    assert data["findings"] == report.findings and data["modules"][0]["causes"][0]["cause"] == "options"
    again = _measure(tmp_path, "options_late.py", OPTIONS_AFTER_LAUNCH)
    assert _placed(again) == _placed(report)


def test_kernel_defined_after_the_module_loaded_is_wct007_at_its_definition(tmp_path):
    report = _measure(tmp_path, "kernel_late.py", KERNEL_AFTER_LOAD)
    assert _placed(report) == [("WCT007", "kernel_late.py", 10)]
    assert "kernel `second` was added" in report.findings[0]["message"]
    assert "line 14" in report.findings[0]["message"]


def test_generic_kernel_with_new_types_after_load_is_wct007_at_the_second_launch(tmp_path):
    report = _measure(tmp_path, "generic_late.py", GENERIC_LATE_TYPES)
    assert _placed(report) == [("WCT007", "generic_late.py", 12)]
    message = report.findings[0]["message"]
    assert "generic kernel `fill`" in message and "float64" in message and "wp.overload" in message


def test_unique_modules_of_stable_kernels_are_wct002_but_factory_kernels_are_not(tmp_path):
    report = _measure(tmp_path, "unique.py", UNIQUE_MODULES)
    assert _placed(report) == [("WCT002", "unique.py", 3), ("WCT002", "unique.py", 7)]
    assert all(f["severity"] == "info" for f in report.findings)
    assert sum(1 for m in report.analysis.modules for c in m.causes if c.cause == "unique_module") == 4


def test_measured_findings_agree_with_the_lint_rules():
    from warp_ct.analyzer.rules import all_rules

    rules = {rule.code: rule for rule in all_rules()}
    assert measured.DOCS_URL == LINT_DOCS_URL
    for code, name in measured.RULE_NAMES.items():
        assert rules[code].name == name
