"""Exit codes (0 clean, 1 findings, 2 error), usage errors, and what the lint path imports."""

from __future__ import annotations

import sys
import textwrap

from .conftest import CLEAN_SOURCE, WCT005_SOURCE, run_subprocess


def test_exit_codes_in_process(cli, project):
    project.write("bad.py", WCT005_SOURCE)
    project.write("good.py", CLEAN_SOURCE)
    assert cli("lint", "good.py").rc == 0
    assert cli("lint", "bad.py").rc == 1
    assert cli("lint", "--exit-zero", "bad.py").rc == 0
    assert cli("lint", "--exit-zero", "bad.py").out.startswith("bad.py:3:12: WCT005")



def _severity(level: str, *, fail_level: str | None = None) -> str:
    """A pyproject making WCT005 (an error by default) an ``level`` finding."""
    extra = f'fail-level = "{fail_level}"\n' if fail_level else ""
    return f'[tool.warp-ct]\n{extra}severity = {{ WCT005 = "{level}" }}\n'


def test_info_findings_are_shown_but_pass_unless_the_fail_level_asks(cli, project):
    project.write("pyproject.toml", _severity("info"))
    project.write("bad.py", WCT005_SOURCE)
    run = cli("lint", "bad.py")
    assert run.rc == 0, run.err
    assert run.out.startswith("bad.py:3:12: WCT005") and "Found 1 finding" in run.out  # shown and counted
    assert cli("lint", "--fail-level", "info", "bad.py").rc == 1
    assert cli("lint", "--fail-level", "info", "--exit-zero", "bad.py").rc == 0  # --exit-zero still wins
    assert cli("lint", "--output-format", "json", "bad.py").rc == 0
    project.write("pyproject.toml", _severity("info", fail_level="info"))
    assert cli("lint", "bad.py").rc == 1
    assert cli("lint", "--fail-level", "warning", "bad.py").rc == 0  # the flag overrides the config
    project.write("pyproject.toml", _severity("hint", fail_level="info"))
    assert cli("lint", "bad.py").rc == 0  # below info never fails


def test_warnings_fail_by_default_and_the_error_level_ignores_them(cli, project):
    project.write("pyproject.toml", _severity("warning"))
    project.write("bad.py", WCT005_SOURCE)
    assert cli("lint", "bad.py").rc == 1
    assert cli("lint", "--fail-level", "warning", "bad.py").rc == 1
    assert cli("lint", "--fail-level", "info", "bad.py").rc == 1
    run = cli("lint", "--fail-level", "error", "bad.py")
    assert run.rc == 0 and "Found 1 finding" in run.out
    project.write("pyproject.toml", _severity("warning", fail_level="error"))
    assert cli("lint", "bad.py").rc == 0
    assert cli("lint", "--fail-level", "warning", "bad.py").rc == 1
    project.write("pyproject.toml", "[tool.warp-ct]\n")
    assert cli("lint", "--fail-level", "error", "bad.py").rc == 1  # WCT005 is an error


def test_fail_level_applies_to_what_remains_after_fix_and_not_to_diff(cli, project):
    project.write("pyproject.toml", _severity("info"))
    project.write("bad.py", WCT005_SOURCE)
    # --diff keeps its meaning: exit 1 when a fix would change a file, whatever the severity.
    assert cli("lint", "--diff", "bad.py").rc == 1
    assert cli("lint", "--diff", "--exit-zero", "bad.py").rc == 0
    assert cli("lint", "--fail-level", "info", "--fix", "bad.py").rc == 0  # fixed: nothing remains
    assert cli("lint", "--diff", "bad.py").rc == 0


def test_fail_level_flag_rejects_other_values(cli, project):
    project.write("bad.py", WCT005_SOURCE)
    run = cli("lint", "--fail-level", "hint", "bad.py")
    assert run.rc == 2 and "--fail-level" in run.err

def test_usage_errors_exit_2(cli, project):
    project.write("bad.py", WCT005_SOURCE)
    run = cli("lint", "missing.py")
    assert run.rc == 2 and run.err == "warp-ct: error: missing.py: no such file or directory\n"
    run = cli("lint", "--select", "E501", "bad.py")
    assert run.rc == 2 and "--select: 'E501' is not a rule code or prefix" in run.err
    run = cli("lint", "--ignore", "WCT999", "bad.py")
    assert run.rc == 2 and "'WCT999' matches no rule" in run.err
    assert cli("lint", "--output-format", "xml", "bad.py").rc == 2  # argparse's own error
    assert cli("lint", "-", "bad.py").rc == 2
    assert cli("lint", "--jobs", "-3", "bad.py").rc == 2
    assert cli("explain", "WCT999").rc == 2
    assert cli("lint", "--config", "nope.toml", "bad.py").rc == 2
    assert cli().rc == 2  # no command: help on stderr


def test_internal_error_is_one_line_with_debug_hint(cli, project, monkeypatch):
    project.write("bad.py", WCT005_SOURCE)

    def explode(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr("warp_ct.analyzer.batch.run_lint", explode)
    run = cli("lint", "bad.py")
    assert run.rc == 2
    assert run.err.count("\n") == 1
    assert "internal error: RuntimeError: boom" in run.err and "WARP_CT_DEBUG=1" in run.err
    monkeypatch.setenv("WARP_CT_DEBUG", "1")
    run = cli("lint", "bad.py")
    assert run.rc == 2 and "Traceback" in run.err


def test_exit_codes_and_output_in_a_subprocess(tmp_path):
    (tmp_path / "bad.py").write_text(WCT005_SOURCE)
    (tmp_path / "good.py").write_text(CLEAN_SOURCE)
    (tmp_path / "pyproject.toml").write_text('[tool.warp-ct]\nselect = "WCT"\nignore = ["E501"]\n')
    assert run_subprocess(["-m", "warp_ct", "lint", "good.py"], tmp_path).rc == 2  # bad config
    (tmp_path / "pyproject.toml").write_text('[tool.warp-ct]\nselect = ["WCT"]\n')
    good = run_subprocess(["-m", "warp_ct", "lint", "good.py"], tmp_path)
    assert (good.rc, good.out) == (0, "All checks passed!\n"), good.err
    bad = run_subprocess(["-m", "warp_ct", "lint", "."], tmp_path)
    assert bad.rc == 1 and bad.out.startswith("bad.py:3:12: WCT005 [*]"), bad.err
    assert run_subprocess(["-m", "warp_ct", "lint", "--exit-zero", "."], tmp_path).rc == 0
    stdin = run_subprocess(["-m", "warp_ct", "lint", "--stdin-filename", "x.py"], tmp_path, stdin=WCT005_SOURCE.encode())
    assert stdin.rc == 1 and stdin.out.startswith("x.py:3:12: WCT005")
    version = run_subprocess(["-m", "warp_ct", "--version"], tmp_path)
    assert version.rc == 0 and version.out.startswith("warp-ct ")


def test_lint_path_never_imports_pygls_lsprotocol_or_warp(tmp_path):
    (tmp_path / "bad.py").write_text(WCT005_SOURCE)
    (tmp_path / "broken.py").write_text("import warp as wp\ndef f(:\n@wp.kernel(module_options={})\n")
    script = textwrap.dedent(
        """
        import sys
        from warp_ct.cli import main
        codes = [main(["lint", "--no-cache", "--output-format", fmt, "."]) for fmt in ("concise", "full", "json", "sarif", "github")]
        codes.append(main(["lint", "--no-cache", "--statistics", "."]))
        codes.append(main(["lint", "--no-cache", "--diff", "."]))
        codes.append(main(["rules"]))
        codes.append(main(["explain", "WCT005"]))
        heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("pygls", "lsprotocol", "warp"))
        print("CODES", codes)
        print("HEAVY", heavy)
        """
    )
    run = run_subprocess(["-c", script], tmp_path)
    assert run.rc == 0, run.err
    assert "CODES [1, 1, 1, 1, 1, 1, 1, 0, 0]" in run.out
    assert "HEAVY []" in run.out, run.out[-2000:]


def test_python_dash_m_entry_point_matches_console_script_behaviour(tmp_path):
    run = run_subprocess(["-m", "warp_ct", "lint", "--help"], tmp_path)
    assert run.rc == 0
    for flag in ("--select", "--extend-select", "--ignore", "--output-format", "--output-file", "--exit-zero", "--fail-level",
                 "--statistics", "--stdin-filename", "--fix", "--unsafe-fixes", "--diff", "--jobs", "--no-cache",
                 "--cache-dir", "--config"):  # fmt: skip
        assert flag in run.out, flag
    assert sys.executable


def test_jobs_and_cache_flags_reach_the_batch_runner(cli, project, monkeypatch):
    from pathlib import Path

    from warp_ct.analyzer import batch

    project.write("pyproject.toml", "[tool.warp-ct]\n")
    project.write("src/mod.py", "x = 1\n")
    seen = []
    real = batch.run_lint

    def spy(paths, config, *, jobs=None, cache_dir=None, on_file=None):
        seen.append((list(paths), jobs, cache_dir))
        return real(paths, config, jobs=1, cache_dir=None, on_file=on_file)

    monkeypatch.setattr(batch, "run_lint", spy)
    monkeypatch.delenv("WARP_CT_CACHE_DIR")
    os_chdir = project.root / "src"
    monkeypatch.chdir(os_chdir)
    assert cli("lint", "mod.py").rc == 0
    assert seen[-1] == (["mod.py"], None, project.root / ".warp_ct_cache")  # beside the config
    cli("lint", "-j", "3", "--cache-dir", "/tmp/somewhere", "mod.py")
    assert seen[-1] == (["mod.py"], 3, Path("/tmp/somewhere"))
    cli("lint", "--jobs", "0", "--no-cache", "mod.py")
    assert seen[-1] == (["mod.py"], None, None)
    monkeypatch.setenv("WARP_CT_CACHE_DIR", "/tmp/from-env")
    cli("lint", "mod.py")
    assert seen[-1][2] == Path("/tmp/from-env")


def test_default_cache_dir_without_pyproject_is_the_working_directory(cli, project, monkeypatch):
    from warp_ct.analyzer import batch

    project.write("src/mod.py", "x = 1\n")
    seen = []
    real = batch.run_lint
    monkeypatch.setattr(batch, "run_lint", lambda paths, config, **kw: seen.append(kw["cache_dir"]) or real(paths, config))
    monkeypatch.delenv("WARP_CT_CACHE_DIR")
    cli("lint", "src")
    assert seen == [project.root / ".warp_ct_cache"]
