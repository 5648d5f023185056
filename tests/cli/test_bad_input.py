"""Bad input never crashes: syntax errors, undecodable, binary, empty and huge files, and a
rule that raises. Nothing passes unread: a file or folder that cannot be read, decoded or
parsed, or is skipped for its size or for being binary, is a WCT900 finding and is counted
in the summary line, never "All checks passed!"."""

from __future__ import annotations

import json
import os
import sys

import pytest

from warp_ct.analyzer.engine import Linter
from warp_ct.analyzer.model import Severity
from warp_ct.analyzer.rules import all_rules
from warp_ct.analyzer.rules.base import Rule
from warp_ct.config import Config

from .conftest import WCT005_SOURCE, run_where_permissions_apply


def _findings(run):
    return [(f["path"], f["code"], f["location"]["line"]) for f in json.loads(run.out)["findings"]]


# The engine parses a Warp file only when some rule's text trigger matches it (its cost
# model), so the broken file below mentions what WCT005 looks for.
BROKEN = 'import warp as wp\n\ndef f(:\n    pass\n\n@wp.kernel(module_options={})\ndef k():\n    pass\n'


def test_syntax_error_is_a_finding_and_other_files_are_still_linted(cli, project):
    project.write("a_broken.py", BROKEN)
    project.write("b_good.py", WCT005_SOURCE)
    run = cli("lint", "--output-format", "json", ".")
    assert run.rc == 1
    findings = json.loads(run.out)["findings"]
    assert [(f["path"], f["code"]) for f in findings] == [("a_broken.py", "WCT900"), ("b_good.py", "WCT005")]
    assert findings[0]["location"]["line"] == 3
    assert findings[0]["message"].startswith("could not parse")
    concise = cli("lint", ".")
    assert concise.out.startswith("a_broken.py:3:")
    assert "Traceback" not in concise.err


def test_python_312_type_parameters_and_aliases_are_linted(cli, project):
    # liblaf-apple 0.7.0 and mujoco-warp-pbr 0.2.0 (``type Vector = ...``, ``def f[T](...)``):
    # packages for Python 3.12+, linted by a warp-ct on an older Python all the same.
    project.write("aliases.py", "import warp as wp\n\ntype Vector[T] = wp.array\n\n"
                  "def first[T](items: list[T]) -> T:\n    return items[0]\n\n" + WCT005_SOURCE)  # fmt: skip
    findings = json.loads(cli("lint", "--output-format", "json", ".").out)["findings"]
    assert [(f["code"], f["location"]["line"]) for f in findings] == [("WCT005", 10)]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="this Python reads PEP 695 syntax")
def test_newer_python_syntax_says_which_python_reads_it(cli, project):
    # Type parameters over several lines are left to the syntax error, which says why.
    project.write("aliases.py", "import warp as wp\n\ndef first[\n    T,\n](items: list[T]) -> T:\n    return items[0]\n")
    run = cli("lint", "--output-format", "json", ".")
    (finding,) = json.loads(run.out)["findings"]
    assert finding["code"] == "WCT900" and finding["location"]["line"] == 3
    assert "Python 3.12 syntax, which this Python 3." in finding["message"]
    project.write("aliases.py", BROKEN)
    (plain,) = json.loads(cli("lint", "--output-format", "json", ".").out)["findings"]
    assert "Python 3.12" not in plain["message"]


def test_non_utf8_file(cli, project):
    project.write("latin.py", b"import warp as wp\nname = 'caf\xe9'\n")
    project.write("good.py", WCT005_SOURCE)
    run = cli("lint", "--output-format", "json", ".")
    assert run.rc == 1
    assert ("latin.py", "WCT900", 2) in _findings(run)
    message = json.loads(run.out)["findings"][1]["message"] if _findings(run)[1][0] == "latin.py" else json.loads(run.out)["findings"][0]["message"]
    assert "utf-8" in message
    assert ("good.py", "WCT005", 3) in _findings(run)


def test_binary_and_empty_files(cli, project):
    project.write("blob.py", bytes(range(256)) * 4)
    project.write("empty.py", b"")
    project.write("good.py", WCT005_SOURCE)
    run = cli("lint", ".")
    assert run.rc == 1
    assert run.out.splitlines()[0] == "blob.py:1:1: WCT900 not checked: binary file (contains NUL bytes)"
    assert run.out.splitlines()[1].startswith("good.py:3:12: WCT005")
    assert run.out.splitlines()[-1] == "Found 2 findings (1 fixable with --fix); 1 file could not be checked: 1 binary."
    assert run.err == ""
    assert cli("lint", "blob.py").rc == 1
    assert cli("lint", "--exit-zero", "blob.py").rc == 0
    assert cli("lint", "empty.py").rc == 0


def test_a_generated_50000_line_file(cli, project):
    body = "".join(f"v{i} = {i}\n" for i in range(50_000 - 6))
    project.write("huge.py", WCT005_SOURCE + body)
    run = cli("lint", "--output-format", "json", "huge.py")
    assert run.rc == 1
    assert _findings(run) == [("huge.py", "WCT005", 3)]


class _ExplodingRule(Rule):
    code = "WCT999"
    name = "test-exploding"
    severity = Severity.WARNING
    summary = "always raises"
    docs = ""

    def visit_functiondef(self, node, ctx):
        raise ZeroDivisionError("division by zero in a test rule")


def test_a_rule_that_raises_is_reported_and_the_others_still_run(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text(WCT005_SOURCE)
    linter = Linter(Config(root=tmp_path), rules=(*all_rules(), _ExplodingRule()))
    findings = linter.lint_paths([str(path)])[0].findings
    codes = sorted(f.rule for f in findings)
    assert codes == ["WCT005", "WCT901"]
    error = next(f for f in findings if f.rule == "WCT901")
    assert "WCT999" in error.message and "ZeroDivisionError" in error.message


def test_a_rule_that_raises_through_the_cli(cli, project, monkeypatch):
    from warp_ct.analyzer import engine

    monkeypatch.setattr(engine, "all_rules", lambda: (*all_rules(), _ExplodingRule()))
    project.write("mod.py", WCT005_SOURCE)
    run = cli("lint", "--no-cache", "-j", "1", "--output-format", "json", "mod.py")
    assert run.rc == 1
    assert sorted(f[1] for f in _findings(run)) == ["WCT005", "WCT901"]
    assert "Traceback" not in run.err


def test_directory_order_is_deterministic(cli, project):
    for name in ("z.py", "a/b.py", "a/a.py", "B.py", "m/n/o.py"):
        project.write(name, WCT005_SOURCE)
    run = cli("lint", "--output-format", "json", ".")
    assert [f[0] for f in _findings(run)] == sorted(["z.py", "a/b.py", "a/a.py", "B.py", "m/n/o.py"])


# ---------------------------------------------------------------------- nothing passes unread
def _summary(run):
    return run.out.splitlines()[-1]


def test_an_unreadable_file_is_a_finding_that_fails_the_run(project):
    project.write("good.py", "x = 1\n")
    secret = project.write("secret.py", WCT005_SOURCE)
    secret.chmod(0)
    try:
        for args in (["secret.py"], ["."]):
            run = run_where_permissions_apply(["-m", "warp_ct", "lint", "--no-cache", *args], project.root)
            assert run.rc == 1, run.err
            assert run.out.splitlines()[0] == "secret.py:1:1: WCT900 could not read file: permission denied"
            assert _summary(run) == "Found 1 finding; 1 file could not be checked: 1 unreadable."
            assert "All checks passed" not in run.out and run.err == ""
    finally:
        secret.chmod(0o644)


def test_an_unreadable_folder_is_a_finding_walked_or_named(project):
    project.write("good.py", "x = 1\n")
    project.write("locked/inner.py", WCT005_SOURCE)
    locked = project.root / "locked"
    locked.chmod(0)
    try:
        walked = run_where_permissions_apply(["-m", "warp_ct", "lint", "--no-cache", "."], project.root)
        assert walked.rc == 1, walked.err
        assert walked.out.splitlines()[0] == "locked:1:1: WCT900 could not read folder: permission denied"
        assert _summary(walked) == "Found 1 finding; 1 folder could not be read."
        named = run_where_permissions_apply(["-m", "warp_ct", "lint", "--no-cache", "locked"], project.root)
        assert (named.rc, named.out, named.err) == (1, walked.out, "")  # not an internal error
        both = run_where_permissions_apply(["-m", "warp_ct", "lint", "--no-cache", ".", "./locked"], project.root)
        assert both.out == walked.out  # reported once
        inside = run_where_permissions_apply(["-m", "warp_ct", "lint", "--no-cache", "locked/inner.py"], project.root)
        assert inside.rc == 1 and inside.err == ""
        assert inside.out.startswith("locked/inner.py:1:1: WCT900 could not read file: permission denied\n")
    finally:
        locked.chmod(0o755)


# The same code paths with failures that hold for root too.
def test_a_broken_link_is_an_unreadable_file_walked_or_named(cli, project):
    project.write("good.py", "x = 1\n")
    os.symlink("nowhere.py", project.root / "gone.py")
    for args in (["."], ["gone.py"]):
        run = cli("lint", *args)
        assert run.rc == 1
        assert run.out.splitlines()[0] == (
            "gone.py:1:1: WCT900 could not read file: no such file or directory (a broken symbolic link)"
        )
        assert _summary(run) == "Found 1 finding; 1 file could not be checked: 1 unreadable."
    assert cli("lint", "--exit-zero", ".").rc == 0


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_fifo_is_not_read_it_is_reported(cli, project):
    os.mkfifo(project.root / "pipe.py")  # opening it for reading would wait for a writer
    for args in (["."], ["pipe.py"]):
        run = cli("lint", *args)
        assert run.rc == 1
        assert run.out.splitlines()[0] == "pipe.py:1:1: WCT900 could not read file: not a regular file"


def test_a_folder_that_cannot_be_listed_while_walking_is_reported(cli, project, monkeypatch):
    # The walk lists a folder, then cannot list what is inside it: here it is removed in
    # between (the same os.walk error as a folder without read permission).
    import shutil

    from warp_ct.config import Config

    project.write("good.py", "x = 1\n")
    project.write("sub/a.py", WCT005_SOURCE)
    is_excluded = Config.is_excluded

    def removing_sub(self, path, within=None):
        if os.path.basename(path) == "sub":
            shutil.rmtree(path)
        return is_excluded(self, path, within)

    monkeypatch.setattr(Config, "is_excluded", removing_sub)
    run = cli("lint", "--no-cache", ".")
    assert run.rc == 1
    assert run.out == (
        "sub:1:1: WCT900 could not read folder: no such file or directory\n"
        "Found 1 finding; 1 folder could not be read.\n"
    )


def test_the_summary_counts_each_reason(cli, project, monkeypatch):
    from warp_ct.analyzer import engine

    monkeypatch.setattr(engine, "MAX_FILE_BYTES", 1000)
    project.write("big.py", "x = 1\n" * 200)
    project.write("blob.py", b"\x00")
    project.write("broken.py", BROKEN)
    project.write("latin.py", b"import warp as wp\nname = 'caf\xe9'\n")
    os.symlink("nowhere.py", project.root / "gone.py")
    run = cli("lint", "--no-cache", ".")
    assert run.rc == 1
    messages = [line.split(": WCT900 ")[1] for line in run.out.splitlines()[:-1]]
    assert messages[0].startswith("not checked: larger than ")
    assert messages[1:] == [
        "not checked: binary file (contains NUL bytes)",
        "could not parse: invalid syntax",
        "could not read file: no such file or directory (a broken symbolic link)",
        "could not decode as utf-8: invalid byte at offset 29",
    ]
    assert _summary(run) == (
        "Found 5 findings; 5 files could not be checked: "
        "1 unreadable, 1 undecodable, 1 syntax error, 1 too large, 1 binary."
    )
    # Turned off, WCT900 gives notes and passes, but the summary still says what was not checked.
    quiet = cli("lint", "--no-cache", "--ignore", "WCT900", ".")
    assert quiet.rc == 0 and quiet.out.splitlines() == [
        "5 files could not be checked: 1 unreadable, 1 undecodable, 1 syntax error, 1 too large, 1 binary."
    ]
    stats = cli("lint", "--no-cache", "--ignore", "WCT900", "--statistics", ".")
    assert stats.out == quiet.out


def test_machine_formats_carry_the_findings(cli, project):
    os.symlink("nowhere.py", project.root / "gone.py")
    project.write("blob.py", b"\x00")
    data = json.loads(cli("lint", "--output-format", "json", ".").out)
    assert [(f["path"], f["code"], f["severity"]) for f in data["findings"]] == [
        ("blob.py", "WCT900", "error"), ("gone.py", "WCT900", "error"),
    ]
    sarif = json.loads(cli("lint", "--output-format", "sarif", ".").out)
    results = sarif["runs"][0]["results"]
    assert [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in results] == [
        ("WCT900", "error", "blob.py"), ("WCT900", "error", "gone.py"),
    ]
    github = cli("lint", "--output-format", "github", ".")
    assert github.rc == 1 and github.out.splitlines() == [
        "::error file=blob.py,line=1,col=1,endLine=1,endColumn=1,title=WCT900 (could-not-parse)::"
        "not checked: binary file (contains NUL bytes)",
        "::error file=gone.py,line=1,col=1,endLine=1,endColumn=1,title=WCT900 (could-not-parse)::"
        "could not read file: no such file or directory (a broken symbolic link)",
    ]


def test_a_file_over_its_time_budget_fails_the_run(cli, project, monkeypatch):
    from functools import partial

    from tests.perf.generate import OVER_BUDGET_S, one_file_over_budget, rules_stalling_on_the_slow_file
    from warp_ct.analyzer import batch

    stalling = partial(Linter, rules=rules_stalling_on_the_slow_file(), file_budget_s=OVER_BUDGET_S)
    monkeypatch.setattr(batch, "Linter", stalling)
    one_file_over_budget(project.root)
    # Only the budget's finding (the rule that would find something did not finish): it fails all the same.
    run = cli("lint", "--no-cache", "-j", "1", "--select", "WCT009", "a_ladders.py")
    assert run.rc == 1 and "All checks passed!" not in run.out + run.err
    assert "Found 1 finding." in run.out and "WCT901" in run.out
    assert f"time budget of {OVER_BUDGET_S:g} s" in run.out and "rule WCT009 did not finish" in run.out
    run = cli("lint", "--no-cache", "-j", "1", "--select", "WCT009,WCT010", ".")
    assert run.rc == 1 and "WCT901" in run.out
    assert "b_uses.py" in run.out  # the other file's findings are still shown
    assert "Traceback" not in run.err
