"""[tool.warp-ct] in pyproject.toml, CLI precedence, per-file-ignores, exclusions, errors."""

from __future__ import annotations

import json

import pytest

from warp_ct.config import Config

from .conftest import WCT005_SOURCE


def _codes(run) -> list[tuple[str, str]]:
    return [(f["path"], f["code"]) for f in json.loads(run.out)["findings"]]


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('select = "WCT" x', "invalid TOML"),
        ('select = ["E501"]', "key 'select': 'E501' is not a rule code or prefix"),
        ("ignore = 3", "key 'ignore' must be a list of strings (got 3)"),
        ("colour = true", "unknown key 'colour'"),
        ('severity = { WCT005 = "loud" }', "key 'severity'['WCT005']: unknown severity 'loud'"),
        ("severity = { WCT005 = 2 }", "key 'severity'['WCT005'] must be a severity name: hint, info, warning or error (got 2)"),
        ('severity = { WCT999 = "info" }', "key 'severity': 'WCT999' is not a rule; `warp-ct rules` lists them"),
        ('per-file-ignores = ["x"]', "key 'per-file-ignores' must be a table"),
        ('target-warp-version = "one"', "key 'target-warp-version' must be a version string"),
        ("target-warp-version = 1.16", "key 'target-warp-version' must be a version string like \"1.16\" (got 1.16)"),
        # a code or prefix that selects no rule would silently check nothing
        ('select = ["WCT999"]', "key 'select': 'WCT999' matches no rule; `warp-ct rules` lists them"),
        ('extend-select = ["WCT07"]', "key 'extend-select': 'WCT07' matches no rule"),
        ('ignore = ["WCT999"]', "key 'ignore': 'WCT999' matches no rule"),
        ('per-file-ignores = { "tests/*" = ["WCT999"] }', "key 'per-file-ignores'['tests/*']: 'WCT999' matches no rule"),
        ("select = []", "key 'select' is empty, so no rule would run (use `ignore` to turn rules off)"),
        ('select = [""]', "key 'select': '' is not a rule code or prefix"),
        # a bare string where a list belongs, as ruff refuses it
        ('select = "WCT003"', "key 'select' must be a list of strings: write [\"WCT003\"], not \"WCT003\""),
        ('ignore = "WCT003"', "key 'ignore' must be a list of strings: write [\"WCT003\"], not \"WCT003\""),
        ('exclude = "build"', "key 'exclude' must be a list of strings: write [\"build\"], not \"build\""),
        ("extend-exclude = [1]", "key 'extend-exclude' must be a list of strings (got [1])"),
        ('per-file-ignores = { "tests/*" = "WCT003" }', "key 'per-file-ignores'['tests/*'] must be a list of strings"),
        ('fail-level = "loud"', "key 'fail-level' must be one of \"info\", \"warning\", \"error\" (got 'loud')"),
        ("fail_level = 1", "key 'fail_level' must be one of \"info\", \"warning\", \"error\" (got 1)"),
    ],
)
def test_bad_config_is_a_clear_error_naming_file_and_key(cli, project, toml, message):
    project.write("pyproject.toml", f"[tool.warp-ct]\n{toml}\n")
    project.write("mod.py", WCT005_SOURCE)
    run = cli("lint", "mod.py")
    assert run.rc == 2
    assert run.err.startswith("warp-ct: error: ") and "pyproject.toml" in run.err and message in run.err, run.err
    assert run.err.count("\n") == 1 and "Traceback" not in run.err
    assert run.out == ""


def test_empty_selections_are_accepted_where_they_mean_nothing_extra(cli, project):
    project.write("pyproject.toml", "[tool.warp-ct]\nignore = []\nextend-select = []\n[tool.warp-ct.per-file-ignores]\n\"x.py\" = []\n")
    project.write("mod.py", WCT005_SOURCE)
    assert cli("lint", "mod.py").rc == 1


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("--select=", "--select: no rule code given (expected codes or prefixes like WCT003, WCT0 or ALL)"),
        ("--ignore=", "--ignore: no rule code given"),
        ("--extend-select= ", "--extend-select: no rule code given"),
        ("--select=WCT005,", "--select: 'WCT005,' has an empty item between commas"),
        ("--ignore=WCT003,,WCT005", "--ignore: 'WCT003,,WCT005' has an empty item between commas"),
        ("--select=WCT999", "--select: 'WCT999' matches no rule; `warp-ct rules` lists them"),
    ],
)
def test_empty_or_unknown_selector_flags_are_usage_errors(cli, project, flag, message):
    """Like ruff: an empty selector is an error, not a request to select (or ignore) nothing."""
    project.write("mod.py", WCT005_SOURCE)
    run = cli("lint", flag, "mod.py")
    assert run.rc == 2 and run.err.startswith(f"warp-ct: error: {message}"), run.err
    assert run.err.count("\n") == 1 and run.out == ""


def test_config_is_found_from_the_first_path(cli, project):
    project.write("sub/pyproject.toml", '[tool.warp-ct]\nignore = ["WCT005"]\n')
    project.write("sub/mod.py", WCT005_SOURCE)
    assert cli("lint", "sub").rc == 0
    assert cli("lint", "sub/mod.py").rc == 0


def test_explicit_config_option(cli, project):
    project.write("conf/pyproject.toml", '[tool.warp-ct]\nignore = ["WCT005"]\n')
    project.write("mod.py", WCT005_SOURCE)
    assert cli("lint", "mod.py").rc == 1
    assert cli("lint", "--config", "conf/pyproject.toml", "mod.py").rc == 0


def test_cli_flags_win_over_the_config(cli, project):
    project.write("pyproject.toml", '[tool.warp-ct]\nignore = ["WCT005"]\n')
    project.write("mod.py", WCT005_SOURCE)
    assert cli("lint", "mod.py").rc == 0
    assert cli("lint", "--select", "WCT005", "mod.py").rc == 1
    assert cli("lint", "--extend-select", "WCT005", "mod.py").rc == 1
    project.write("pyproject.toml", '[tool.warp-ct]\nselect = ["WCT005"]\n')
    assert cli("lint", "mod.py").rc == 1
    assert cli("lint", "--ignore", "WCT0", "mod.py").rc == 0
    assert cli("lint", "--select", "WCT001", "mod.py").rc == 0
    assert cli("lint", "--select", "WCT", "--ignore", "WCT005", "mod.py").rc == 0
    assert cli("lint", "--select", "WCT005", "--ignore", "WCT0", "mod.py").rc == 1  # more specific wins


def test_cli_selection_layers_like_ruff():
    codes = ("WCT001", "WCT003", "WCT005")
    base = Config(select=("WCT",), ignore=("WCT003",))
    enabled = lambda c: [code for code in codes if c.is_enabled(code)]  # noqa: E731
    assert enabled(base) == ["WCT001", "WCT005"]
    assert enabled(base.with_cli_selection(codes, select=("WCT00",))) == list(codes)
    assert enabled(base.with_cli_selection(codes, extend_select=("WCT003",))) == list(codes)
    assert enabled(base.with_cli_selection(codes, ignore=("WCT001",))) == ["WCT005"]
    assert enabled(base.with_cli_selection(codes, select=("WCT005",), ignore=("WCT005",))) == []
    assert base.with_cli_selection(codes) is base


def test_per_file_ignores_globs_relative_to_the_config_root(cli, project):
    project.write(
        "pyproject.toml",
        '[tool.warp-ct]\n[tool.warp-ct.per-file-ignores]\n"tests/*" = ["WCT005"]\n"legacy_*.py" = ["WCT"]\n',
    )
    project.write("tests/test_a.py", WCT005_SOURCE)
    project.write("pkg/legacy_b.py", WCT005_SOURCE)
    project.write("pkg/c.py", WCT005_SOURCE)
    run = cli("lint", "--output-format", "json", ".")
    assert _codes(run) == [("pkg/c.py", "WCT005")]
    # Run from a subdirectory: globs stay relative to the pyproject's folder.
    import os

    os.chdir(project.root / "tests")
    assert cli("lint", ".").rc == 0


def test_severity_override(cli, project):
    project.write("pyproject.toml", '[tool.warp-ct]\nseverity = { WCT005 = "info" }\n')
    project.write("mod.py", WCT005_SOURCE)
    run = cli("lint", "--output-format", "github", "mod.py")
    assert run.out.startswith("::notice ")



def test_fail_level_key(cli, project):
    from warp_ct.config import config_from_mapping

    assert Config().fail_level == "warning"
    assert config_from_mapping({"fail-level": "Info"}, origin="x", root=project.root).fail_level == "info"
    assert config_from_mapping({"fail_level": "error"}, origin="x", root=project.root).fail_level == "error"
    project.write("pyproject.toml", '[tool.warp-ct]\nfail-level = "error"\nseverity = { WCT005 = "warning" }\n')
    project.write("mod.py", WCT005_SOURCE)
    assert cli("lint", "mod.py").rc == 0
    assert cli("lint", "--fail-level", "warning", "mod.py").rc == 1

def test_exclude_applies_to_directory_walks_only(cli, project):
    project.write("pyproject.toml", '[tool.warp-ct]\nextend-exclude = ["generated"]\n')
    project.write("generated/mod.py", WCT005_SOURCE)
    project.write("build/mod.py", WCT005_SOURCE)  # a default exclusion
    project.write("src/mod.py", WCT005_SOURCE)
    assert _codes(cli("lint", "--output-format", "json", ".")) == [("src/mod.py", "WCT005")]
    assert cli("lint", "generated/mod.py").rc == 1  # named explicitly: linted
    assert cli("lint", "--force-exclude", "generated/mod.py").rc == 0  # what the pre-commit hook passes
    project.write("pyproject.toml", '[tool.warp-ct]\nexclude = ["src"]\n')  # replaces the defaults
    assert _codes(cli("lint", "--output-format", "json", ".")) == [("build/mod.py", "WCT005"), ("generated/mod.py", "WCT005")]


def test_exclude_patterns_match_names_globs_and_paths_outside_the_root(tmp_path, monkeypatch):
    config = Config(root=tmp_path, exclude=("build", "gen/*.py", "*_pb2.py"))
    monkeypatch.chdir(tmp_path)
    excluded = ["build", "build/a.py", "src/build/x/a.py", "gen/a.py", "src/m_pb2.py", str(tmp_path / "gen/b.py")]
    kept = ["src/a.py", "gen", "builds/a.py", "/elsewhere/src/a.py", str(tmp_path / "src/a.py")]
    for _ in range(2):  # answers are kept per folder: asked twice, the same
        assert [p for p in excluded if not config.is_excluded(p)] == []
        assert [p for p in kept if config.is_excluded(p)] == []
    assert config.is_excluded("/elsewhere/build/a.py")  # outside the root: the path as named


def test_stdin_filename_selects_per_file_ignores(cli, project):
    project.write("pyproject.toml", '[tool.warp-ct.per-file-ignores]\n"tests/*" = ["WCT005"]\n')
    assert cli("lint", "--stdin-filename", "tests/x.py", stdin=WCT005_SOURCE).rc == 0
    assert cli("lint", "--stdin-filename", "src/x.py", stdin=WCT005_SOURCE).rc == 1
