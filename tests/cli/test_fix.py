"""--fix, --unsafe-fixes, --diff, `warp-ct fix`, stdin fixing; writes are atomic and safe."""

from __future__ import annotations

import json
import os
import stat

import pytest

from warp_ct.analyzer.model import Applicability, Finding, Fix, Range, Severity, TextEdit
from warp_ct.analyzer.fixes import apply_fixes
from warp_ct.analyzer.rules.base import Rule
from warp_ct import lint_command

from .conftest import FIXED_WCT005_SOURCE, WCT005_SOURCE


def test_fix_applies_and_reports_remaining(cli, project):
    target = project.write("bad.py", WCT005_SOURCE)
    run = cli("lint", "--fix", "bad.py")
    assert run.rc == 0
    assert target.read_text() == FIXED_WCT005_SOURCE
    assert run.out == "Fixed 1 finding (0 remaining).\n"
    assert cli("lint", "bad.py").rc == 0


def test_fix_command_is_an_alias(cli, project):
    target = project.write("bad.py", WCT005_SOURCE)
    assert cli("fix", "bad.py").rc == 0
    assert target.read_text() == FIXED_WCT005_SOURCE


def test_fix_keeps_crlf_encoding_bom_and_mode(cli, project):
    crlf = project.write("crlf.py", WCT005_SOURCE.replace("\n", "\r\n").encode())
    latin = project.write("latin.py", ("# -*- coding: latin-1 -*-\n# café\n" + WCT005_SOURCE).encode("latin-1"))
    bom = project.write("bom.py", b"\xef\xbb\xbf" + WCT005_SOURCE.encode())
    os.chmod(crlf, 0o751)
    run = cli("lint", "--fix", ".")
    assert run.rc == 0, run.out + run.err
    assert crlf.read_bytes() == FIXED_WCT005_SOURCE.replace("\n", "\r\n").encode()
    assert stat.S_IMODE(os.stat(crlf).st_mode) == 0o751
    assert latin.read_bytes() == ("# -*- coding: latin-1 -*-\n# café\n" + FIXED_WCT005_SOURCE).encode("latin-1")
    assert bom.read_bytes() == b"\xef\xbb\xbf" + FIXED_WCT005_SOURCE.encode()
    assert "Fixed 3 findings (0 remaining)." in run.out
    assert not [p for p in os.listdir(project.root) if p.endswith(".tmp")]


def test_fix_writes_atomically_through_os_replace(cli, project, monkeypatch):
    target = project.write("bad.py", WCT005_SOURCE)
    calls = []
    real_replace = os.replace

    def spy(src, dst):
        if os.path.basename(dst) == "bad.py":
            calls.append((os.path.dirname(os.path.abspath(src)), os.path.basename(src), dst))
            assert os.path.exists(src) and open(src).read() == FIXED_WCT005_SOURCE
        return real_replace(src, dst)

    monkeypatch.setattr(lint_command.os, "replace", spy)
    cli("lint", "--fix", "--no-cache", "bad.py")
    assert len(calls) == 1
    directory, tmp_name, dst = calls[0]
    assert directory == str(project.root) and tmp_name.startswith(".bad.py.")
    assert os.path.realpath(dst) == str(target.resolve())


def test_failed_write_leaves_the_file_and_no_temp(cli, project, monkeypatch):
    target = project.write("bad.py", WCT005_SOURCE)

    def fail(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(lint_command.os, "replace", fail)
    run = cli("lint", "--fix", "--no-cache", "bad.py")
    assert target.read_text() == WCT005_SOURCE
    assert "bad.py: error: fix not written: no space left on device" in run.err
    assert run.rc == 1 and "Fixed" not in run.out
    assert sorted(os.listdir(project.root)) == ["bad.py"]


class _BreakingFixRule(Rule):
    """Offers a fix whose result does not parse, plus one that does (unsafe)."""

    code = "WCT998"
    name = "test-breaking-fix"
    severity = Severity.WARNING
    summary = "test rule"
    docs = ""
    fix_applicability = Applicability.SAFE

    def visit_module(self, node, ctx):
        ctx.report(Range.from_coords(0, 0, 0, 6), "breaks", fixes=[ctx.fix("break it", ctx.insert_at(0, 0, "def ("))])


def test_fix_never_writes_a_file_that_would_not_parse(cli, project, monkeypatch):
    from warp_ct.analyzer import engine
    from warp_ct.analyzer.rules import all_rules

    target = project.write("mod.py", WCT005_SOURCE)
    monkeypatch.setattr(engine, "all_rules", lambda: (*all_rules(), _BreakingFixRule()))
    run = cli("lint", "--fix", "--no-cache", "-j", "1", "mod.py")
    text = target.read_text()
    assert text == FIXED_WCT005_SOURCE  # the good fix applied, the breaking one not
    assert "mod.py:1:1: WCT998" in run.out and run.rc == 1


def test_apply_fixes_skips_unparsable_and_overlapping():
    rng = Range.from_coords(0, 0, 0, 1)

    def finding(col, new_text):
        edit = TextEdit(Range.from_coords(0, col, 0, col + 1), new_text)
        return Finding("WCT005", "x.py", rng, "m", Severity.ERROR, fixes=(Fix("t", (edit,)),))

    outcome = apply_fixes("a = 1\n", [finding(0, "b"), finding(0, "c"), finding(4, "(")])
    assert outcome.text == "b = 1\n"
    assert len(outcome.applied) == 1 and len(outcome.skipped) == 2


def test_apply_fixes_keeps_crlf_in_inserted_lines():
    edit = TextEdit(Range.from_coords(1, 0, 1, 0), "y = 2\n")
    f = Finding("WCT005", "x.py", Range.from_coords(1, 0, 1, 1), "m", Severity.ERROR, fixes=(Fix("t", (edit,)),))
    assert apply_fixes("x = 1\r\nz = 3\r\n", [f]).text == "x = 1\r\ny = 2\r\nz = 3\r\n"


def test_apply_fixes_counts_lines_like_python_not_str_splitlines():
    # A form feed is not a line break for Python: ranges must not shift after it.
    edit = TextEdit(Range.from_coords(1, 0, 1, 1), "b")
    f = Finding("WCT005", "x.py", Range.from_coords(1, 0, 1, 1), "m", Severity.ERROR, fixes=(Fix("t", (edit,)),))
    assert apply_fixes("x = 1 \x0c\na = 2\n", [f]).text == "x = 1 \x0c\nb = 2\n"


class _UnsafeFixRule(Rule):
    code = "WCT997"
    name = "test-unsafe-fix"
    severity = Severity.WARNING
    summary = "test rule"
    docs = ""
    fix_applicability = Applicability.UNSAFE

    def visit_module(self, node, ctx):
        if "# unsafe" in ctx.text:
            return
        ctx.report(Range.from_coords(0, 0, 0, 6), "unsafe one", fixes=[ctx.fix("mark", ctx.insert_at(0, 0, "# unsafe\n"), safe=False)])


@pytest.fixture
def unsafe_rule(monkeypatch):
    from warp_ct.analyzer import engine
    from warp_ct.analyzer.rules import all_rules

    monkeypatch.setattr(engine, "all_rules", lambda: (*all_rules(), _UnsafeFixRule()))


def test_unsafe_fixes_only_with_flag(cli, project, unsafe_rule):
    target = project.write("mod.py", "import warp as wp\n")
    run = cli("lint", "--no-cache", "-j", "1", "mod.py")
    assert run.out.splitlines()[0] == "mod.py:1:1: WCT997 unsafe one"  # no [*]: not fixable without the flag
    assert run.out.splitlines()[-1] == "Found 1 finding (1 more with --fix --unsafe-fixes)."
    assert "mod.py:1:1: WCT997 [*] unsafe one" in cli("lint", "--no-cache", "-j", "1", "--unsafe-fixes", "mod.py").out
    run = cli("lint", "--no-cache", "-j", "1", "--fix", "mod.py")
    assert target.read_text() == "import warp as wp\n" and run.rc == 1
    run = cli("lint", "--no-cache", "-j", "1", "--fix", "--unsafe-fixes", "mod.py")
    assert target.read_text() == "# unsafe\nimport warp as wp\n"
    assert run.rc == 0 and "Fixed 1 finding (0 remaining)." in run.out


def test_diff_prints_changes_writes_nothing_and_exits_1(cli, project):
    target = project.write("bad.py", WCT005_SOURCE)
    run = cli("lint", "--diff", "bad.py")
    assert run.rc == 1
    assert target.read_text() == WCT005_SOURCE
    assert run.out.splitlines()[:2] == ["--- bad.py", "+++ bad.py"]
    assert '-@wp.kernel(module_options={"enable_backward": False})' in run.out
    assert '+@wp.kernel(module="unique", module_options={"enable_backward": False})' in run.out
    assert run.err == "Would fix 1 finding.\n"
    project.write("bad.py", FIXED_WCT005_SOURCE)
    run = cli("lint", "--diff", "bad.py")
    assert (run.rc, run.out) == (0, "")


def test_stdin_fix_prints_fixed_source(cli, project):
    run = cli("lint", "--fix", "--stdin-filename", "mod.py", stdin=WCT005_SOURCE)
    assert run.out == FIXED_WCT005_SOURCE
    assert run.rc == 0
    run = cli("lint", "--fix", "-", stdin="x = 1\n")
    assert run.out == "x = 1\n" and run.rc == 0


def test_stdin_diff(cli, project):
    run = cli("lint", "--diff", "--stdin-filename", "mod.py", stdin=WCT005_SOURCE)
    assert run.rc == 1 and run.out.startswith("--- mod.py\n+++ mod.py\n")
    assert list(project.root.iterdir()) == []


def test_fix_leaves_undecodable_files_alone(cli, project):
    raw = WCT005_SOURCE.encode() + b"x = '\xff'\n"
    target = project.write("bad.py", raw)
    run = cli("lint", "--fix", "bad.py")
    assert target.read_bytes() == raw
    assert run.rc == 1 and "WCT900" in run.out


def test_fix_with_nothing_fixable_reports_like_lint(cli, project, unsafe_rule):
    project.write("mod.py", "import warp as wp\n")
    run = cli("lint", "--no-cache", "-j", "1", "--fix", "mod.py")
    assert run.rc == 1
    assert run.out.splitlines()[-1] == "Found 1 finding (1 more with --fix --unsafe-fixes)."


def test_fix_with_machine_format_keeps_stdout_clean(cli, project):
    target = project.write("bad.py", WCT005_SOURCE)
    run = cli("lint", "--fix", "--output-format", "json", "bad.py")
    assert json.loads(run.out)["summary"] == {"findings": 0, "fixable": 0, "fixed": 1}
    assert run.err == "Fixed 1 finding (0 remaining).\n"
    assert target.read_text() == FIXED_WCT005_SOURCE


# ---------------------------------------------------------------------- fixes never lose data
# A user saves the file while warp-ct runs: a line above the finding pushes it down, so fixes
# computed on the first read would land in the wrong line (still valid Python: the meaning
# changes, ``x_166945 = module="unique", 166945 * 2 + 1``).
EDITED_WCT005_SOURCE = WCT005_SOURCE.replace("\n\n", "\n\nx_166945 = 166945 * 2 + 1\n\n", 1).encode()
CHANGED_NOTE = "bad.py: note: not fixed: the file changed after warp-ct read it; run warp-ct again\n"


def test_fix_leaves_a_file_edited_after_it_was_analysed(cli, project, monkeypatch):
    target = project.write("bad.py", WCT005_SOURCE)
    other = project.write("other.py", WCT005_SOURCE)
    real_lint = lint_command._lint
    runs = []

    def lint_then_user_saves(*args, **kwargs):
        results = real_lint(*args, **kwargs)
        if not runs:  # the analysis is done; the fixes are not yet computed
            target.write_bytes(EDITED_WCT005_SOURCE)
        runs.append(args)
        return results

    monkeypatch.setattr(lint_command, "_lint", lint_then_user_saves)
    run = cli("lint", "--fix", "--no-cache", ".")
    assert target.read_bytes() == EDITED_WCT005_SOURCE  # exactly as the user left it
    assert other.read_text() == FIXED_WCT005_SOURCE
    assert run.err == CHANGED_NOTE
    assert run.out.splitlines() == [  # the edited file, linted again from disk
        'bad.py:5:12: WCT005 [*] `module_options=` needs `module="unique"`: Warp raises ValueError at import without it',
        "Fixed 1 finding (1 remaining).",
    ]
    assert run.rc == 1


def test_fix_leaves_a_file_edited_after_its_fixes_were_computed(cli, project, monkeypatch):
    target = project.write("bad.py", WCT005_SOURCE)
    real_fix_one = lint_command.FixSession.fix_one

    def fix_then_user_saves(self, result, raw):
        fix = real_fix_one(self, result, raw)
        target.write_bytes(EDITED_WCT005_SOURCE)  # before the fixed text is written
        return fix

    monkeypatch.setattr(lint_command.FixSession, "fix_one", fix_then_user_saves)
    run = cli("lint", "--fix", "--no-cache", "bad.py")
    assert target.read_bytes() == EDITED_WCT005_SOURCE
    assert run.err == CHANGED_NOTE
    assert run.out.splitlines()[0].startswith("bad.py:5:12: WCT005")  # where it is now
    assert "Fixed" not in run.out and run.rc == 1
    assert sorted(os.listdir(project.root)) == ["bad.py"]


def test_diff_shows_nothing_for_a_file_edited_after_it_was_analysed(cli, project, monkeypatch):
    target = project.write("bad.py", WCT005_SOURCE)
    real_lint = lint_command._lint

    def lint_then_user_saves(*args, **kwargs):
        results = real_lint(*args, **kwargs)
        target.write_bytes(EDITED_WCT005_SOURCE)
        return results

    monkeypatch.setattr(lint_command, "_lint", lint_then_user_saves)
    run = cli("lint", "--diff", "--no-cache", "bad.py")
    assert (run.rc, run.out) == (0, "")
    assert run.err == "No fixes available.\n" + CHANGED_NOTE


def test_fix_never_replaces_a_read_only_file(cli, project):
    # The mode is checked, not only os.access: root may write anything, but a read-only
    # file stays read-only (ruff: "permission denied").
    read_only = project.write("ro.py", WCT005_SOURCE)
    read_only.chmod(0o444)
    writable = project.write("rw.py", WCT005_SOURCE)
    error = "ro.py: error: fix not written: permission denied (the file is read-only)\n"
    run = cli("lint", "--fix", ".")
    assert read_only.read_text() == WCT005_SOURCE and stat.S_IMODE(read_only.stat().st_mode) == 0o444
    assert writable.read_text() == FIXED_WCT005_SOURCE
    assert run.err == error
    assert run.out.splitlines()[-1] == "Fixed 1 finding (1 remaining)."
    assert run.rc == 1
    # The error is never quiet, and fails the run even when what remains would not.
    project.write("pyproject.toml", '[tool.warp-ct]\nseverity = { WCT005 = "info" }\n')
    run = cli("lint", "--fix", "-q", "ro.py")
    assert (run.rc, run.err) == (1, error)
    assert cli("lint", "--fix", "--exit-zero", "ro.py").rc == 0
    data = json.loads(cli("lint", "--fix", "--output-format", "json", "ro.py").out)
    assert data["summary"]["fixed"] == 0
    assert data["notes"] == [{"path": "ro.py", "message": error[len("ro.py: error: "):-1], "level": "error"}]
    assert read_only.read_text() == WCT005_SOURCE


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a file to another user")
def test_fix_as_root_keeps_the_owner(cli, project):
    target = project.write("bad.py", WCT005_SOURCE)
    os.chown(target, 65534, 65534)
    assert cli("lint", "--fix", "bad.py").rc == 0
    assert target.read_text() == FIXED_WCT005_SOURCE
    assert (target.stat().st_uid, target.stat().st_gid) == (65534, 65534)
