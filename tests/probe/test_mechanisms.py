"""Each measurable mechanism, on a small real Warp program (device "cpu", nothing mocked)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest

from tests.probe.conftest import EXAMPLES, measure_example
from warp_ct.probe.html import render_html, write_html
from warp_ct.probe.text import render_text

pytestmark = pytest.mark.warp


def _codes(report):
    return [d.code for d in report.analysis.diagnoses]


def _main_module(report):
    (module,) = [m for m in report.analysis.modules if m.name == "__main__"]
    return module


def test_options_after_first_load_give_three_hashes(no_leaked_temp_dirs):
    report = measure_example("options_after_load.py")
    module = _main_module(report)
    assert len(module.hashes) == 3 and module.builds == 3
    assert module.hash_churn and not module.block_dim_spread
    assert [k.key for k in module.kernels] == ["scale"]
    assert Path(module.kernels[0].file) == EXAMPLES / "options_after_load.py"
    assert "hash-churn" in _codes(report)
    load = report.samples[0].cold.loads[0]
    assert load.status == "compiled" and load.device == "cpu" and load.block_dim == 1
    assert load.native_ms is not None and 0 < load.native_ms <= load.ms
    assert all(w.status == "cached" for w in report.samples[0].warm.loads)
    (launch,) = report.samples[0].cold.launches
    assert (launch.kernel, launch.module, launch.dim, launch.count, launch.adjoint) == ("scale", "__main__", (16,), 3, False)
    assert launch.dtypes[1] == "float32" and launch.block_dim == 1


def test_closure_kernels_give_one_hash_per_captured_constant():
    module = _main_module(measure_example("closure_kernels.py", "3"))
    assert len(module.hashes) == 3
    same = _main_module(measure_example("closure_kernels.py", "3", "same"))
    assert len(same.hashes) == 1 and same.builds == 1


def test_unique_modules_hold_one_kernel_each():
    report = measure_example("unique_modules.py")
    modules = report.analysis.modules
    assert sorted(k.key for m in modules for k in m.kernels) == ["double", "fill", "negate"]
    assert len(modules) == 3 and all(m.is_unique_module for m in modules)
    assert "one-kernel-modules" in _codes(report)


def test_destroyed_cache_recompiles_in_the_warm_run():
    report = measure_example("destroyed_cache.py")
    assert [w.status for w in report.samples[0].warm.loads] == ["compiled"]
    diagnosis = next(d for d in report.analysis.diagnoses if d.code == "cache-not-reused")
    assert diagnosis.evidence and "__main__" in diagnosis.modules


def test_clean_program_has_no_churn_and_never_touches_the_user_cache(tmp_path, no_leaked_temp_dirs):
    home = tmp_path / "home"
    xdg = tmp_path / "xdg-cache"
    home.mkdir()
    xdg.mkdir()
    env = dict(os.environ, HOME=str(home), XDG_CACHE_HOME=str(xdg))
    env.pop("WARP_CACHE_PATH", None)  # the probe must provide its own
    report = measure_example("clean.py", samples=1, env=env)
    assert _codes(report) == ["no-structural-churn"] or set(_codes(report)) <= {"no-structural-churn", "compile-not-dominant"}
    assert "optimal" not in render_text(report).lower()
    module = _main_module(report)
    assert len(module.hashes) == 1 and module.builds == 1 and module.options.get("enable_backward") is False
    assert list(home.rglob("*")) == [] and list(xdg.rglob("*")) == []


def test_report_json_matches_schema_and_html_is_self_contained(tmp_path):
    report = measure_example("options_after_load.py")
    schema = json.loads((Path(__file__).resolve().parents[2] / "warp_ct/probe/report.schema.json").read_text())
    data = json.loads(json.dumps(report.to_json_dict()))
    jsonschema.validate(data, schema)
    assert data["schema_version"] == 2
    page = tmp_path / "report.html"
    write_html(report, page)
    text = page.read_text()
    assert "<svg" in text and "http://" not in text.replace("http://www.w3.org/2000/svg", "")
    assert "<script" not in text
    # one bar per module load, cold and warm
    loads = sum(len(s.cold.loads) + len(s.warm.loads) for s in report.samples)
    assert render_html(report).count('<rect x="') - sum(2 for _ in report.samples) == loads
