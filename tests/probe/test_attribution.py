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


def _placed(report, *, backward: bool = False):
    """(code, path, line) of the measured findings; those about unused backward code only when
    asked (the programs here launch without a tape: each of them compiles adjoint code unused)."""
    return [(f["code"], f["path"], f["location"]["line"]) for f in report.findings if backward or f["code"] != "WCT010"]


def _findings(report):
    return [f for f in report.findings if f["code"] != "WCT010"]


BACKWARD = """\
import warp as wp

@wp.kernel
def square(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] * a[i]

@wp.kernel(module="unique")
def show(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 0.0

a = wp.ones(4, dtype=float, requires_grad=True, device="cpu")
out = wp.zeros(4, dtype=float, requires_grad=True, device="cpu")
tape = wp.Tape()
with tape:
    wp.launch(square, dim=4, inputs=[a, out], device="cpu")
tape.backward(grads={out: wp.ones(4, dtype=float, device="cpu")})
wp.launch(show, dim=4, inputs=[a], device="cpu")
"""


def test_backward_code_nothing_differentiated_is_wct010_at_the_module_s_first_kernel(tmp_path):
    report = _measure(tmp_path, "backward.py", BACKWARD)
    # `square`'s module ran on the tape; `show`'s own (unique) module compiled adjoint code for nothing
    assert _placed(report, backward=True) == [("WCT010", "backward.py", 8)]
    message = report.findings[0]["message"]
    assert "built with backward (adjoint) code" in message and "no wp.Tape recorded them" in message


def test_options_changed_after_a_launch_is_wct006_at_the_set_module_options_line(tmp_path):
    report = _measure(tmp_path, "options_late.py", OPTIONS_AFTER_LAUNCH)
    assert _placed(report) == [("WCT006", "options_late.py", 13)]
    (finding,) = _findings(report)
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
    assert _placed(report) == [("WCT007", "kernel_late.py", 11)]  # the def, not the decorator
    assert "kernel `second` was added" in _findings(report)[0]["message"]
    assert "line 14" in _findings(report)[0]["message"]


def test_generic_kernel_with_new_types_after_load_is_wct007_at_its_def_and_the_launch(tmp_path):
    report = _measure(tmp_path, "generic_late.py", GENERIC_LATE_TYPES)
    # where the wp.overload belongs; the launch that instantiated the new types is also_at
    assert _placed(report) == [("WCT007", "generic_late.py", 6)]
    (finding,) = _findings(report)
    assert finding["also_at"] == [{"path": "generic_late.py", "line": 12}]
    message = finding["message"]
    assert "generic kernel `fill`" in message and "float64" in message and "wp.overload" in message
    assert "line 12" in message


def test_unique_modules_of_stable_kernels_are_wct002_but_factory_kernels_are_not(tmp_path):
    report = _measure(tmp_path, "unique.py", UNIQUE_MODULES)
    assert _placed(report) == [("WCT002", "unique.py", 3), ("WCT002", "unique.py", 7)]
    assert all(f["severity"] == "info" for f in _findings(report))
    assert sum(1 for m in report.analysis.modules for c in m.causes if c.cause == "unique_module") == 4


def test_unique_kernels_of_a_file_whose_other_kernels_the_run_did_not_use_are_not_wct002(tmp_path):
    """newton's geometry/inertia.py: 2 unique kernels launched by finalize, 2 more kernels in the
    file's own module that it does not launch. One shared module would build those in every run
    too: the probe's WCT002 advice would cost, not save."""
    unused = UNIQUE_MODULES.replace("def make(c: float):", (
        "@wp.kernel\n"
        "def mesh_inertia(a: wp.array(dtype=float)):\n"
        "    a[wp.tid()] = a[wp.tid()] * a[wp.tid()]\n\n"
        "def make(c: float):"
    ))  # fmt: skip
    report = _measure(tmp_path, "unique.py", unused)
    assert _placed(report) == []


def test_measured_findings_agree_with_the_lint_rules():
    from warp_ct.analyzer.rules import all_rules

    rules = {rule.code: rule for rule in all_rules()}
    assert measured.DOCS_URL == LINT_DOCS_URL
    for code, name in measured.RULE_NAMES.items():
        assert rules[code].name == name


CACHE_CLEARED_AT_EXIT = """\
import atexit

import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


def cleanup():
    wp.clear_kernel_cache()


atexit.register(cleanup)
a = wp.zeros(4, dtype=float, device="cpu")
wp.launch(k, dim=4, inputs=[a], device="cpu")
"""

CACHE_RMTREE_AT_EXIT = """\
import atexit
import os
import shutil

import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


wp.init()
os.makedirs("scratch", exist_ok=True)
atexit.register(shutil.rmtree, "scratch", ignore_errors=True)
atexit.register(shutil.rmtree, wp.config.kernel_cache_dir, ignore_errors=True)
atexit.register(wp.clear_lto_cache)
a = wp.zeros(4, dtype=float, device="cpu")
wp.launch(k, dim=4, inputs=[a], device="cpu")
"""

TEMPORARY_CACHE_DIR = """\
import tempfile

import warp as wp

scratch = tempfile.TemporaryDirectory(prefix="kernels-")
wp.config.kernel_cache_dir = scratch.name


@wp.kernel
def k(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


a = wp.zeros(4, dtype=float, device="cpu")
wp.launch(k, dim=4, inputs=[a], device="cpu")
"""

LATE_CONFIG = """\
import warp as wp


@wp.kernel
def first(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


wp.config.max_unroll = 4
a = wp.zeros(4, dtype=float, device="cpu")
wp.launch(first, dim=4, inputs=[a], device="cpu")
wp.config.optimization_level = 1


@wp.kernel
def second(a: wp.array(dtype=float)):
    a[wp.tid()] = 2.0


wp.launch(second, dim=4, inputs=[a], device="cpu")
"""


def test_a_cache_removed_at_exit_is_attributed_to_the_atexit_line(tmp_path):
    report = _measure(tmp_path, "cleared_at_exit.py", CACHE_CLEARED_AT_EXIT)
    assert _placed(report) == [("WCT008", "cleared_at_exit.py", 15)]
    (finding,) = _findings(report)
    assert finding["name"] == "cache-destroyed" and "at exit" in finding["message"]
    assert "`wp.clear_kernel_cache()`" in finding["message"] and "`cleared_at_exit` (run as `__main__`) again" in finding["message"]
    (removal,) = report.samples[0].cold.cache_removals
    assert [(f.line, f.function) for f in removal.frames] == [(12, "cleanup")]
    assert [f.line for f in removal.atexit_frames] == [15]
    schema = json.loads((ROOT / "warp_ct/probe/report.schema.json").read_text())
    jsonschema.validate(json.loads(json.dumps(report.to_json_dict())), schema)


def test_rmtree_of_the_cache_registered_with_atexit_is_wct008_and_a_scratch_folder_is_not(tmp_path):
    report = _measure(tmp_path, "rmtree_at_exit.py", CACHE_RMTREE_AT_EXIT)
    # the scratch folder is not Warp's cache, Warp's own removals of its temporary build
    # folders are not the user's, and the LTO cache (CUDA only) did not cost the CPU rebuild
    assert _placed(report) == [("WCT008", "rmtree_at_exit.py", 16)]
    assert {r.what for r in report.samples[0].cold.cache_removals} == {"rmtree", "clear_lto_cache"}
    assert "`shutil.rmtree` removed the kernel cache directory at exit" in _findings(report)[0]["message"]


def test_a_temporary_kernel_cache_dir_is_wct008_at_the_assignment(tmp_path):
    report = _measure(tmp_path, "temp_cache.py", TEMPORARY_CACHE_DIR)
    assert _placed(report) == [("WCT008", "temp_cache.py", 6)]
    assert "temporary directory" in _findings(report)[0]["message"]


def test_late_wp_config_options_are_wct006_when_hashed_and_wct001_when_copied_at_creation(tmp_path):
    report = _measure(tmp_path, "late_config.py", LATE_CONFIG)
    assert _placed(report) == [
        ("WCT001", "late_config.py", 9),  # max_unroll is copied when the module is made: never arrives
        ("WCT006", "late_config.py", 12),  # optimization_level is hashed: the rebuild carries it
        ("WCT007", "late_config.py", 16),
    ]
    late, hashed, _ = _findings(report)
    assert "never arrived" in late["message"] and "max_unroll=16" in late["message"]
    assert late["evidence"][0]["milliseconds"] == 0
    assert "`wp.config.optimization_level` changed from None to 1" in hashed["message"]
    assert "line 20" in hashed["message"]


# A helper in another file changes the options, a factory called once and a factory called
# per launch add kernels to a loaded module: each finding sits where the static rule puts it.
FLOW_FILES = {
    "kernels.py": """\
import warp as wp

@wp.kernel
def first(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0

def make_once(c: float):
    @wp.kernel
    def once(a: wp.array(dtype=float)):
        a[wp.tid()] = a[wp.tid()] + c
    return once

def make_per_call(c: float):
    @wp.kernel
    def each(a: wp.array(dtype=float)):
        a[wp.tid()] = a[wp.tid()] * c
    return each
""",
    "tune.py": """\
import warp as wp

def fast():
    wp.set_module_options({"fast_math": True}, module="kernels")
""",
    "flow.py": """\
import warp as wp

wp.config.enable_backward = False

import kernels  # noqa: E402
import tune  # noqa: E402

a = wp.zeros(8, dtype=float, device="cpu")
wp.launch(kernels.first, dim=8, inputs=[a], device="cpu")
tune.fast()
wp.launch(kernels.first, dim=8, inputs=[a], device="cpu")
wp.launch(kernels.make_once(1.0), dim=8, inputs=[a], device="cpu")
for c in (2.0, 3.0):
    wp.launch(kernels.make_per_call(c), dim=8, inputs=[a], device="cpu")
""",
}


def test_findings_sit_at_the_helper_call_the_factory_call_and_the_per_call_def(tmp_path):
    for name, source in FLOW_FILES.items():
        (tmp_path / name).write_text(source)
    report = _measure(tmp_path, "flow.py", FLOW_FILES["flow.py"])
    placed = {(f["code"], f["path"], f["location"]["line"]): f for f in _findings(report)}
    assert sorted(placed) == [
        ("WCT006", "flow.py", 10),  # the call of the helper that comes too late
        ("WCT007", "flow.py", 12),  # the call of the factory (called once) that comes too late
        ("WCT007", "kernels.py", 15),  # a kernel defined per call: its def
    ]
    assert placed[("WCT006", "flow.py", 10)]["also_at"] == [{"path": "tune.py", "line": 4}]
    assert "(in `fast`, tune.py line 4)" in placed[("WCT006", "flow.py", 10)]["message"]
    assert placed[("WCT007", "flow.py", 12)]["also_at"] == [{"path": "kernels.py", "line": 9}]
    assert "for 2 rebuilds" in placed[("WCT007", "kernels.py", 15)]["message"]


BACKWARD_FILES = {
    "back_opts.py": """\
import warp as wp

wp.set_module_options({"enable_backward": True})

@wp.kernel
def square(a: wp.array(dtype=float)):
    a[wp.tid()] = a[wp.tid()] * a[wp.tid()]
""",
    "back_kernel.py": """\
import warp as wp

@wp.kernel
def plain(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0

@wp.kernel(enable_backward=True)
def wanted(a: wp.array(dtype=float)):
    a[wp.tid()] = 2.0
""",
    "backward_asked.py": """\
import warp as wp

wp.config.enable_backward = False

import back_kernel  # noqa: E402
import back_opts  # noqa: E402

a = wp.zeros(8, dtype=float, device="cpu")
wp.launch(back_kernel.plain, dim=8, inputs=[a], device="cpu")
wp.launch(back_kernel.wanted, dim=8, inputs=[a], device="cpu")
wp.launch(back_opts.square, dim=8, inputs=[a], device="cpu")
b = wp.zeros(8, dtype=wp.float64, device="cpu")
wp.utils.array_cast(a, b)
""",
}


def test_backward_code_asked_for_is_wct010_where_it_was_asked_and_warp_s_own_modules_are_left_alone(tmp_path):
    for name, source in BACKWARD_FILES.items():
        (tmp_path / name).write_text(source)
    report = _measure(tmp_path, "backward_asked.py", BACKWARD_FILES["backward_asked.py"])
    # the decorator that asks for it, the set_module_options call that asks for it; Warp's own
    # warp.utils (created at `import warp`, built with backward code) is not the user's: no
    # WCT001 for the global enable_backward=False that came after `import warp`, no WCT010
    assert _placed(report, backward=True) == [("WCT010", "back_kernel.py", 7), ("WCT010", "back_opts.py", 3)]
    kernel, options = report.findings
    assert "kernel `wanted` asks for it" in kernel["message"] and "`set_module_options` asked" in options["message"]
    assert any(load.module == "warp.utils" for load in report.samples[0].cold.loads)
    schema = json.loads((ROOT / "warp_ct/probe/report.schema.json").read_text())
    jsonschema.validate(json.loads(json.dumps(report.to_json_dict())), schema)
