"""Fast tests without Warp: statistics, record parsing, bounded launch data, compare rules."""

from __future__ import annotations

import json

import pytest

from warp_ct.probe.analysis import launch_topology, normalize_kernel_key
from warp_ct.probe.compare import compare_reports, render_comparison
from warp_ct.probe.errors import ReportError
from warp_ct.probe.records import LaunchSignature, ModuleLoad, read_records_dir
from warp_ct.probe.report import ProbeReport, RunResult, SampleResult
from warp_ct.probe.stats import summarize, union_length


def test_median_and_mad():
    s = summarize([1.0, 2.0, 10.0, None])
    assert (s.median, s.mad, s.n) == (2.0, 1.0, 3)
    assert summarize([]).median is None


def test_union_length_counts_overlap_once():
    assert union_length([(0, 2), (1, 3), (5, 6)]) == pytest.approx(4.0)
    assert union_length([]) == 0.0


def test_kernel_keys_are_compared_without_enclosing_functions():
    assert normalize_kernel_key("make_offset_kernel__locals__add_offset") == "add_offset"
    assert normalize_kernel_key("add_offset") == "add_offset"


def test_records_skip_malformed_lines_and_merge_processes(tmp_path):
    (tmp_path / "1.jsonl").write_text(
        json.dumps({"kind": "warp", "t": 10.0, "version": "1.19.0", "notes": []}) + "\n"
        + json.dumps({"kind": "load", "t0": 10.5, "module": "m", "hash": "ab", "device": "cpu", "block_dim": 1,
                      "ms": 5.0, "status": "compiled", "native_ms": 4.0, "kernels": []}) + "\n"
        + '{"kind": "launches", "trunc'  # killed mid-write
    )
    (tmp_path / "2.jsonl").write_text(json.dumps({"kind": "uncaught", "t": 11.0, "type": "X"}) + "\n")
    records = read_records_dir(tmp_path, run_start_epoch=10.0)
    assert records.malformed_lines == 1
    assert [load.module for load in records.loads] == ["m"]
    assert records.loads[0].start_s == pytest.approx(0.5)
    assert records.launch_data_complete is False  # warp process wrote no launch aggregate
    assert records.python_processes == 2 and records.warp_processes == 1


def _report(elapsed: list[float], launches: list[LaunchSignature], hashes=("aa",), warm_wall=1.0) -> ProbeReport:
    samples = []
    for index, cold_minus_warm in enumerate(elapsed):
        loads = [ModuleLoad("m", h, "cpu", 1, 0.1, 100.0, "compiled", 90.0, 1) for h in hashes]
        cold = RunResult("cold", 0, warm_wall + cold_minus_warm, loads=loads, launches=launches)
        warm = RunResult("warm", 0, warm_wall, launches=launches)
        samples.append(SampleResult(index, cold, warm))
    return ProbeReport(command=["x"], cwd="/", samples=samples)


LAUNCH = LaunchSignature("k", "m", (16,), "cpu", ("float32",), 1, False, 3)


def test_compare_verdicts_and_band():
    base = _report([2.0, 2.1, 1.9], [LAUNCH])
    assert compare_reports(base, _report([1.0] * 3, [LAUNCH])).verdict == "improved"
    assert compare_reports(base, _report([3.0] * 3, [LAUNCH])).verdict == "regression"
    # band = max(1% of 2.0, 2 * MAD 0.1) = 0.2
    assert compare_reports(base, _report([2.15] * 3, [LAUNCH])).verdict == "inconclusive"
    result = compare_reports(base, _report([2.25] * 3, [LAUNCH]))
    assert result.verdict == "regression" and result.floor is None and result.samples == 3


def test_fewer_than_three_samples_are_inconclusive_below_a_floor():
    base = _report([10.0], [LAUNCH])
    # +2% with one sample each: a band of 1% of the baseline (0.1 s) called it a regression.
    result = compare_reports(base, _report([10.2], [LAUNCH]))
    assert (result.verdict, result.samples, result.floor, result.band) == ("inconclusive", 1, pytest.approx(2.0), pytest.approx(2.0))
    assert "1 sample: inconclusive below ±2.00 s; measure both with --samples 3" in render_comparison(result)
    assert compare_reports(base, _report([7.5], [LAUNCH])).verdict == "improved"  # -25%: beyond a fifth
    # The floor grows with the spread the runs did show: warm runs 1 s and 4 s apart.
    assert compare_reports(base, _report([7.5], [LAUNCH], warm_wall=4.0)).floor == pytest.approx(3.0)
    # ... and with the spread between the two samples of one report (-25%, 3 s apart).
    assert compare_reports(base, _report([9.0, 6.0], [LAUNCH])).floor == pytest.approx(3.0)
    assert compare_reports(base, _report([9.0, 6.0], [LAUNCH])).verdict == "inconclusive"
    # A base of three samples and a candidate of one: still the floor.
    assert compare_reports(_report([10.0, 10.1, 9.9], [LAUNCH]), _report([10.5], [LAUNCH])).verdict == "inconclusive"


def test_compare_refuses_changed_topology():
    base = _report([2.0], [LAUNCH])
    fewer = LaunchSignature("k", "m", (16,), "cpu", ("float32",), 1, False, 2)
    other_dtype = LaunchSignature("k", "m", (16,), "cpu", ("float64",), 1, False, 3)
    adjoint = LaunchSignature("k", "m", (16,), "cpu", ("float32",), 1, True, 3)
    for changed in ([fewer], [other_dtype], [adjoint], [LAUNCH, LAUNCH], []):
        result = compare_reports(base, _report([1.0], changed))
        assert result.verdict == "invalid" and result.exit_code == 4, changed
        assert result.topology_differences


def test_compare_ignores_module_name_and_enclosing_function():
    hoisted = LaunchSignature("make__locals__k", "other_module_1234abcd", (16,), "cpu", ("float32",), 1, False, 3)
    assert launch_topology([hoisted]) == launch_topology([LAUNCH])
    assert compare_reports(_report([2.0], [LAUNCH]), _report([1.0], [hoisted])).verdict == "improved"


def test_compare_lists_changed_module_identities():
    result = compare_reports(_report([2.0], [LAUNCH], hashes=("aa", "bb", "cc")), _report([1.0], [LAUNCH]))
    assert any("3 -> 1 hash" in line for line in result.changed_modules)


def test_report_round_trip_and_schema_errors():
    report = _report([2.0, 2.2], [LAUNCH], hashes=("aa", "bb"))
    data = json.loads(json.dumps(report.to_json_dict()))
    assert ProbeReport.from_json_dict(data).to_json_dict() == data
    with pytest.raises(ReportError):
        ProbeReport.from_json_dict({"samples": []})
    with pytest.raises(ReportError):
        ProbeReport.from_json_dict({**data, "schema_version": 99})


def test_diagnoses_never_claim_optimal():
    report = _report([2.0], [LAUNCH])
    codes = [d.code for d in report.analysis.diagnoses]
    assert "no-structural-churn" in codes
    text = json.dumps(report.to_json_dict()).lower()
    assert "optimal" not in text


def test_a_measure_report_with_measured_findings_is_a_report_not_a_lint_result():
    from warp_ct.probe.report import document_kind

    assert document_kind({"schema_version": 2, "command": ["python", "x.py"], "samples": [], "findings": []}) is None
    assert document_kind({"findings": [], "summary": {}}) == "a `warp-ct lint` JSON report (findings)"


def test_a_script_s_main_module_goes_by_its_file_s_module_name(tmp_path):
    """Issue 37 item 7: the probe names a script's module `__main__`; the user (and the static
    side) knows it by its file's module name. Other modules keep their names."""
    from warp_ct.probe.analysis import ModuleIdentity, shown_module_name, user_module_name
    from warp_ct.probe.records import KernelSource

    def module(name: str, *files: str) -> ModuleIdentity:
        kernels = [KernelSource(f"k{i}", f, 3) for i, f in enumerate(files)]
        return ModuleIdentity(name, "cpu", ["h"], [1], {}, 1, 1, 10.0, None, kernels, None)

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    script, main = str(tmp_path / "app.py"), str(package / "__main__.py")
    assert user_module_name(module("__main__", script)) == "app"
    assert shown_module_name(module("__main__", script)) == "`app` (run as `__main__`)"
    assert user_module_name(module("__main__", main)) == "pkg.__main__"  # python -m pkg
    assert user_module_name(module("__main__.form_1a2b", script)) == "app.form_1a2b"
    assert shown_module_name(module("pkg.stages", str(package / "stages.py"))) == "`pkg.stages`"
    # no single file of the user's to name it by: the name the run gave it
    assert user_module_name(module("__main__", "<string>")) == "__main__"
    assert user_module_name(module("__main__", "/x/site-packages/warp/_src/fem/integrate.py")) == "__main__"
    assert user_module_name(module("__main__", script, str(tmp_path / "other.py"))) == "__main__"
    assert user_module_name(module("__main__")) == "__main__"
