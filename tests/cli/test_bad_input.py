"""Bad input never crashes: syntax errors, undecodable, binary, empty and huge files, and a
rule that raises."""

from __future__ import annotations

import json
import sys

import pytest

from warp_ct.analyzer.engine import Linter
from warp_ct.analyzer.model import Severity
from warp_ct.analyzer.rules import all_rules
from warp_ct.analyzer.rules.base import Rule
from warp_ct.config import Config

from .conftest import WCT005_SOURCE


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
    assert run.out.startswith("good.py:3:12: WCT005")
    assert run.err == "blob.py: note: skipped: binary file (contains NUL bytes)\n"
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
