"""confirm: attach measured evidence to findings (hand-made findings, and lint_paths if present)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.probe.conftest import EXAMPLES, ROOT, measure_example
from warp_ct.analyzer.model import Finding, Range, Severity
from warp_ct.confirm import attach_evidence, python_module_name

pytestmark = pytest.mark.warp


def _finding(rule: str, path, line: int, message: str = "") -> Finding:
    return Finding(rule, str(path), Range.from_coords(line, 0, line, 10), message or rule, Severity.WARNING)


def test_options_after_load_finding_is_confirmed():
    report = measure_example("options_after_load.py")
    finding = _finding("WCT006", EXAMPLES / "options_after_load.py", 14, "options changed after `scale` was launched")
    (result,), unexplained = attach_evidence([finding], report)
    (evidence,) = result.evidence
    assert evidence.summary.startswith("confirmed: module `__main__` built 3× with 3 hashes")
    assert evidence.distinct_hashes == 3 and evidence.builds == 3 and evidence.milliseconds > 0
    assert unexplained == []  # the churn is explained by the finding


def test_unmatched_churn_is_listed_as_unexplained():
    report = measure_example("options_after_load.py")
    unrelated = _finding("WCT002", EXAMPLES / "clean.py", 3)
    (result,), unexplained = attach_evidence([unrelated], report)
    assert result.evidence == ()
    assert len(unexplained) == 1 and "`__main__`" in unexplained[0] and "rebuilt" in unexplained[0]


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
    assert result.evidence[0].summary.startswith("confirmed: module `__main__` rebuilt 1× in the warm run")
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
