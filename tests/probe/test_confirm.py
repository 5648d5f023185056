"""confirm: attach measured evidence to findings (hand-made findings, and lint_paths if present)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.probe.conftest import EXAMPLES, ROOT, measure_example
from warp_ct.analyzer.model import Finding, Range, Severity
from warp_ct.confirm import attach_evidence, join, python_module_name

pytestmark = pytest.mark.warp


def _finding(rule: str, path, line: int, message: str = "") -> Finding:
    return Finding(rule, str(path), Range.from_coords(line, 0, line, 10), message or rule, Severity.WARNING)


def test_options_after_load_finding_is_confirmed():
    report = measure_example("options_after_load.py")
    finding = _finding("WCT006", EXAMPLES / "options_after_load.py", 14, "options changed after `scale` was launched")
    (result,), unexplained = attach_evidence([finding], report)
    # One problem, one line: the measured finding at that line carries the module's figures (the
    # module's own "built 3×" is not repeated), and names the script's module as the user knows
    # it, by its file (the probe saw `__main__`).
    (twin,) = result.evidence
    assert twin.summary.startswith(
        "confirmed: measured at examples/probe/options_after_load.py:15: module `options_after_load` built 3× with 3 hashes, "
    ), twin.summary
    assert twin.summary.endswith(" s rebuilding") and "`__main__`" not in twin.summary
    assert twin.module == "__main__" and twin.distinct_hashes == 3 and twin.builds == 3 and twin.milliseconds > 0
    assert unexplained == []  # the churn is explained by the finding


def test_unmatched_churn_is_listed_as_unexplained():
    report = measure_example("options_after_load.py")
    unrelated = _finding("WCT002", EXAMPLES / "clean.py", 3)
    (result,), unexplained = attach_evidence([unrelated], report)
    assert result.evidence == ()
    assert len(unexplained) == 1 and "`options_after_load` (run as `__main__`)" in unexplained[0] and "rebuilt" in unexplained[0]


def test_a_rule_whose_mechanism_is_not_measured_gets_facts_not_confirmation():
    report = measure_example("clean.py")
    finding = _finding("WCT009", EXAMPLES / "clean.py", 11)
    (result,), _ = attach_evidence([finding], report)
    assert result.evidence and all(e.summary.startswith("measured:") for e in result.evidence)


def test_unique_and_destroyed_cache_are_confirmed():
    unique = measure_example("unique_modules.py")
    (result,), unexplained = attach_evidence([_finding("WCT002", EXAMPLES / "unique_modules.py", 5, "`fill`")], unique)
    assert result.evidence[0].summary.startswith("confirmed:") and "fill" in result.evidence[0].module
    destroyed = measure_example("destroyed_cache.py")
    (result,), unexplained = attach_evidence([_finding("WCT008", EXAMPLES / "destroyed_cache.py", 4)], destroyed)
    (twin,) = result.evidence  # the measured finding's figures; the module's are not repeated
    assert twin.summary.startswith(
        "confirmed: measured at examples/probe/destroyed_cache.py:5: module `destroyed_cache` rebuilt 1× in the warm run, "
    ), twin.summary
    assert unexplained == []


def test_module_names_follow_packages(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "stages.py").write_text("")
    assert python_module_name(package / "stages.py") == "pkg.stages"
    assert python_module_name(package / "__init__.py") == "pkg"


def test_confirm_cli_with_the_real_linter(tmp_path):
    pytest.importorskip("warp_ct.analyzer")
    from warp_ct import analyzer

    if not hasattr(analyzer, "lint_paths"):
        pytest.skip("lint_paths not available yet")
    report = measure_example("options_after_load.py")
    report_path = tmp_path / "report.json"
    report_path.write_text(json.dumps(report.to_json_dict()))
    result = subprocess.run(
        [sys.executable, "-m", "warp_ct", "confirm", "--json", str(report_path), "--format", "json",
         str(EXAMPLES / "options_after_load.py")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode in (0, 1), result.stderr
    payload = json.loads(result.stdout)
    assert set(payload) >= {"findings", "unexplained"}
    # Whatever the rules find, the measured churn is either confirmed on a finding or listed.
    confirmed = [e for f in payload["findings"] for e in f["evidence"] if e["summary"].startswith("confirmed")]
    assert confirmed or any("`__main__`" in u for u in payload["unexplained"])


def test_a_module_name_alone_attaches_nothing(tmp_path):
    """Another program's `__main__` measurement says nothing about an unrelated script."""
    report = measure_example("options_after_load.py")
    script = tmp_path / "other.py"
    script.write_text("import warp as wp\n\nwp.set_module_options({'enable_backward': False})\nwp.clear_kernel_cache()\n")
    named = _finding("WCT006", script, 2, "options of `__main__` changed after it was launched")
    process_wide = _finding("WCT008", script, 3, "clear_kernel_cache() deletes the cache")
    result = join([named, process_wide], report)
    assert [j.finding.evidence for j in result.joined] == [(), ()]
    assert [j.status for j in result.joined] == ["not-exercised", "not-exercised"]
    # the churn it measured stays unexplained, and its measured finding is missed
    missed = [(m.rule, m.line) for m in result.missed if m.rule != "WCT010"]  # (no tape: backward code unused)
    assert result.unexplained and missed == [("WCT006", 15), ("WCT006", 17)]


APP_MAIN = """\
import warp as wp

from app.helper import tune


@wp.kernel
def first(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


a = wp.zeros(4, dtype=float, device="cpu")
wp.launch(first, dim=4, inputs=[a], device="cpu")
tune()


@wp.kernel
def second(a: wp.array(dtype=float)):
    a[wp.tid()] = 2.0


wp.launch(second, dim=4, inputs=[a], device="cpu")
"""

APP_HELPER = """\
import warp as wp


def tune():
    wp.config.optimization_level = 1
"""

APP_UNUSED = """\
import warp as wp


def reset():
    wp.clear_kernel_cache()
"""


def test_confirm_joins_by_place_with_statuses_missed_and_left_out(tmp_path):
    from warp_ct.probe.measure import run_measure

    app = tmp_path / "app"
    app.mkdir()
    (app / "__init__.py").write_text("")
    (app / "__main__.py").write_text(APP_MAIN)
    (app / "helper.py").write_text(APP_HELPER)
    (app / "unused.py").write_text(APP_UNUSED)
    report = run_measure([sys.executable, "-m", "app"], cwd=str(tmp_path), samples=1)
    assert report.ok_samples, report.samples[0].cold.stderr_tail
    report_path = tmp_path / "report.json"
    report_path.write_text(json.dumps(report.to_json_dict()))
    measured = {(f["code"], f["path"], f["location"]["line"]) for f in report.findings}
    # (and backward code that no tape used: the run launches without one)
    # the late optimization_level at the call of the helper that made it (the assignment is also_at)
    assert measured == {("WCT007", "app/__main__.py", 17), ("WCT006", "app/__main__.py", 13), ("WCT010", "app/__main__.py", 6)}
    (late_option,) = [f for f in report.findings if f["code"] == "WCT006"]
    assert late_option["also_at"] == [{"path": "app/helper.py", "line": 5}]

    def confirm(*paths: str, output: str = "json") -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "warp_ct", "confirm", "--json", str(report_path), "--format", output, *paths],
            cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip

    result = confirm(".")
    assert result.returncode == 1, result.stderr
    payload = json.loads(result.stdout)
    by_place = {(f["path"], f["range"]["start"]["line"] + 1, f["code"]): f for f in payload["findings"]}
    late = by_place[("app/__main__.py", 17, "WCT007")]  # both at the def line
    assert late["status"] == "confirmed" and late["measured"][0]["line"] == 17
    assert late["evidence"][0]["summary"].startswith("confirmed: measured at app/__main__.py:17:")
    cleared = by_place[("app/unused.py", 5, "WCT008")]
    assert cleared["status"] == "not-exercised" and cleared["evidence"] == []
    # the late optimization_level in the helper has no static twin: the analyzer missed it
    assert [(m["code"], m["path"], m["location"]["line"]) for m in payload["missed"]] == [("WCT006", "app/__main__.py", 13)]
    assert payload["left_out"] == 0 and payload["statuses"]["confirmed"] >= 1 and payload["unexplained"] == []

    # linting only some files: measured findings in the others are left out, with a note
    partial = confirm("app/helper.py", "app/unused.py")
    data = json.loads(partial.stdout)
    assert data["missed"] == [] and data["left_out"] == 3
    assert "3 measured findings in files outside the linted paths left out" in data["notes"]

    text = confirm(".", output="text").stdout
    # One line per problem: a static finding and its measured twin are printed once, with both
    # sources and the measured figures; a measured finding without a static twin names the
    # module as the user knows it (`app.__main__`, run as `__main__`).
    lines = text.splitlines()
    (late_line,) = [line for line in lines if line.startswith("app/__main__.py:17:")]
    assert late_line.startswith("app/__main__.py:17:1: WCT007 [static + measured] "), late_line
    assert "(confirmed: measured at app/__main__.py:17: module `app.__main__` built 2× with 2 hashes" in late_line
    assert not any(line.lstrip().startswith("confirmed:") for line in lines), text  # no second line for the pair
    assert sum("app/__main__.py:17" in line for line in lines) == 1, text
    (unused_line,) = [line for line in lines if line.startswith("app/unused.py:5:")]
    assert unused_line.endswith("[static] " + by_place[("app/unused.py", 5, "WCT008")]["message"]
                                + " (not exercised by this run: this file was never imported or run by the measured command)")
    missed = lines[lines.index("The static analyzer missed (measured, no finding of that rule at that place):") + 1]
    assert missed.startswith("  app/__main__.py:13: WCT006 [measured] `app.__main__` (run as `__main__`) built "), missed

    # The probe's text report, given the join (as the editor's measurement summary is), prints
    # the pair once too: the static line in place of the measured one, the missed one as measured.
    from warp_ct.analyzer import lint_paths
    from warp_ct.confirm import linted_roots, paired_lines
    from warp_ct.probe.text import render_text

    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        static = sorted((f for r in lint_paths(["."]) for f in r.findings), key=lambda f: f.sort_key)
        report_text = render_text(report, paired_lines(join(static, report, linted_roots(["."]))))
    finally:
        os.chdir(cwd)
    section = report_text[report_text.index("Measured findings (where the rebuilds came from)"):].split("\n\n")[0].splitlines()[1:]
    places = [(line.split(":")[0], int(line.split(":")[1]), line.split(": ", 1)[1].split(" ")[0]) for line in section]
    assert places == [("  app/__main__.py", 6, "WCT010"), ("  app/__main__.py", 13, "WCT006"), ("  app/__main__.py", 17, "WCT007")], section
    assert [line for line in section if "[static + measured]" in line] == [section[0], section[2]], section
    assert "[options-after-load] `app.__main__` (run as `__main__`) built " in section[1], section
    assert render_text(report).count("[static + measured]") == 0  # without the join: the measured findings as they are


def test_gpu_only_mechanisms_are_not_measurable_on_a_cpu_run():
    report = measure_example("clean.py")
    finding = _finding("WCT009", EXAMPLES / "clean.py", 11, "launched at block_dim 128 after 256")
    (joined,) = join([finding], report).joined
    assert joined.status == "not-measurable" and "CUDA" in joined.reason


def test_findings_the_run_did_not_confirm_say_what_the_run_said_about_them(tmp_path):
    """For editors (the server attaches these): not exercised, not measurable, not observed."""
    from warp_ct.confirm import attach_evidence_and_status

    report = measure_example("options_after_load.py")
    other = tmp_path / "other.py"
    other.write_text("import warp as wp\n\nwp.clear_kernel_cache()\n")
    findings = [
        _finding("WCT006", EXAMPLES / "options_after_load.py", 14, "options changed after `scale` was launched"),
        _finding("WCT008", other, 2),
        _finding("WCT009", EXAMPLES / "options_after_load.py", 14, "launched at block_dim 128 after 256"),
    ]
    (confirmed, unexercised, spread), _ = attach_evidence_and_status(findings, report)
    assert confirmed.evidence[0].summary.startswith("confirmed:")  # as attach_evidence has it
    assert [e.summary for e in unexercised.evidence] == [
        "measured: not exercised by this run: this file was never imported or run by the measured command"
    ]
    # first, before the module's facts (which alone would read as "not observed")
    assert spread.evidence[0].summary.startswith("measured: not measurable on this device: a block_dim spread")


SCRIPT_WITH_PER_CALL_KERNEL = """\
import warp as wp


class Example:
    def step(self, a):
        @wp.kernel
        def actuation_kernel(a: wp.array(dtype=float)):
            a[wp.tid()] = 1.0

        wp.launch(actuation_kernel, dim=4, inputs=[a], device="cpu")


a = wp.zeros(4, dtype=float, device="cpu")
for _ in range({steps}):
    Example().step(a)
"""


def test_a_sibling_script_is_not_confirmed_by_the_measured_one(tmp_path):
    """newton's kamino examples: `example_a.py` was measured, `example_b.py` beside it (same class,
    same per-call kernel name) never ran; its findings were `confirmed` by a's `__main__`."""
    from warp_ct.probe.measure import run_measure

    (tmp_path / "example_a.py").write_text(SCRIPT_WITH_PER_CALL_KERNEL.format(steps=2))
    (tmp_path / "example_b.py").write_text(SCRIPT_WITH_PER_CALL_KERNEL.format(steps=3))
    report = run_measure([sys.executable, "example_a.py"], cwd=str(tmp_path), samples=1)
    assert report.ok_samples, report.samples[0].cold.stderr_tail
    message = "`actuation_kernel` is defined each time `Example.step` runs"
    ran, sibling = _finding("WCT003", tmp_path / "example_a.py", 7, message), _finding("WCT003", tmp_path / "example_b.py", 7, message)
    result = join([ran, sibling], report)
    assert [bool(j.finding.evidence) for j in result.joined] == [True, False]
    assert result.joined[1].status == "not-exercised"
