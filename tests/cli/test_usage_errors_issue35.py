"""Mistakes in how warp-ct is called are said in one line that names what is wrong, with
exit 2, never as an "internal error": an ``-o`` file that cannot be written (checked before
linting), a ``serve --tcp`` address that is not one or cannot be listened on, and a
``[tool.warp_ct]`` table (underscore), which TOML keeps apart from ``[tool.warp-ct]`` and
warp-ct would otherwise ignore without a word (issue 35)."""

from __future__ import annotations

import os
import socket
import stat

import pytest

from warp_ct import lint_command

from .conftest import WCT005_SOURCE, run_subprocess, run_where_permissions_apply


def _one_clear_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "internal error" not in err and "Traceback" not in err and "please report" not in err, err
    assert lines[0].startswith("warp-ct: error: "), err
    return lines[0]


@pytest.fixture
def no_linting(monkeypatch):
    """Fails the test if a file is linted: the output file is checked before the run."""

    def lint(*args, **kwargs):
        raise AssertionError("linted before the output file was checked")

    monkeypatch.setattr(lint_command, "_lint", lint)


# ---------------------------------------------------------------------- -o / --output-file
def test_output_file_that_is_a_folder_is_named_before_linting(cli, project, no_linting):
    project.write("bad.py", WCT005_SOURCE)
    (project.root / "reports").mkdir()
    run = cli("lint", "-o", "reports", "bad.py")
    assert run.rc == 2 and run.out == ""
    assert _one_clear_line(run.err) == "warp-ct: error: -o/--output-file: cannot write reports: is a directory"


def test_output_file_under_a_file_is_named_before_linting(cli, project, no_linting):
    project.write("bad.py", WCT005_SOURCE)
    project.write("notes", "a file where a folder would be made\n")
    run = cli("lint", "--output-file", "notes/deeper/report.txt", "bad.py")
    assert run.rc == 2 and run.out == ""
    assert _one_clear_line(run.err) == "warp-ct: error: -o/--output-file: cannot write notes/deeper/report.txt: notes is not a directory"
    assert (project.root / "notes").read_text() == "a file where a folder would be made\n"


def test_output_file_in_missing_folders_makes_them(cli, project):
    project.write("bad.py", WCT005_SOURCE)
    run = cli("lint", "-o", "out/sub/report.txt", "bad.py")
    assert (run.rc, run.out, run.err) == (1, "", "")
    assert (project.root / "out/sub/report.txt").read_text().startswith("bad.py:3:12: WCT005")


def test_output_file_is_replaced_and_is_left_alone_by_a_run_that_stops(cli, project):
    project.write("bad.py", WCT005_SOURCE)
    report = project.write("report.txt", "an older, longer report " * 40)
    run = cli("lint", "-o", "report.txt", "missing.py")  # a usage error after the file was opened
    assert run.rc == 2 and "missing.py: no such file or directory" in run.err
    assert report.read_text() == "an older, longer report " * 40
    assert cli("lint", "-o", "new.txt", "missing.py").rc == 2
    assert not (project.root / "new.txt").exists()  # no empty file left behind
    assert cli("lint", "-o", "report.txt", "bad.py").rc == 1
    assert report.read_text().splitlines()[0].startswith("bad.py:3:12: WCT005")  # all of it replaced
    assert "older" not in report.read_text()


def test_output_file_in_a_read_only_folder(project):
    project.write("bad.py", WCT005_SOURCE)
    locked = project.root / "locked"
    locked.mkdir()
    locked.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        run = run_where_permissions_apply(["-m", "warp_ct", "lint", "-o", "locked/report.txt", "bad.py"], project.root)
    finally:
        locked.chmod(0o755)
    assert run.rc == 2 and run.out == ""
    assert _one_clear_line(run.err) == "warp-ct: error: -o/--output-file: cannot write locked/report.txt: permission denied"
    assert os.listdir(locked) == []


def test_output_file_error_from_the_real_command(project):
    project.write("bad.py", WCT005_SOURCE)
    (project.root / "reports").mkdir()
    run = run_subprocess(["-m", "warp_ct", "lint", "-o", "reports", "bad.py"], project.root)
    assert run.rc == 2 and run.out == ""
    assert _one_clear_line(run.err) == "warp-ct: error: -o/--output-file: cannot write reports: is a directory"


# ---------------------------------------------------------------------- serve --tcp
@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("localhost:notaport", "--tcp: expected HOST:PORT with a port number, got 'localhost:notaport'"),
        ("2087", "--tcp: expected HOST:PORT with a port number, got '2087'"),
        ("127.0.0.1:", "--tcp: expected HOST:PORT with a port number, got '127.0.0.1:'"),
        ("127.0.0.1:-5", "--tcp: expected HOST:PORT with a port number, got '127.0.0.1:-5'"),
        ("127.0.0.1:0", "--tcp: port 0 in '127.0.0.1:0' is out of range (1 to 65535)"),
        ("127.0.0.1:65536", "--tcp: port 65536 in '127.0.0.1:65536' is out of range (1 to 65535)"),
    ],
)
def test_serve_tcp_address_that_is_not_one(cli, address, message):
    run = cli("serve", "--tcp", address)
    assert run.rc == 2 and run.out == ""
    assert _one_clear_line(run.err) == f"warp-ct: error: {message}"


@pytest.fixture
def busy_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


def test_serve_tcp_port_in_use(cli, busy_port):
    run = cli("serve", "--tcp", f"127.0.0.1:{busy_port}")
    assert run.rc == 2 and run.out == ""
    assert _one_clear_line(run.err) == f"warp-ct: error: --tcp: cannot listen on 127.0.0.1:{busy_port}: address already in use"


def test_serve_tcp_errors_from_the_real_command(tmp_path, busy_port):
    # Before the fix: "internal error ... please report it" for a busy port, and a server
    # that never answered for a port out of range.
    run = run_subprocess(["-m", "warp_ct", "serve", "--tcp", f"127.0.0.1:{busy_port}"], tmp_path)
    assert run.rc == 2
    assert _one_clear_line(run.err) == f"warp-ct: error: --tcp: cannot listen on 127.0.0.1:{busy_port}: address already in use"
    run = run_subprocess(["-m", "warp_ct", "serve", "--tcp", "localhost:99999"], tmp_path)
    assert run.rc == 2
    assert _one_clear_line(run.err) == "warp-ct: error: --tcp: port 99999 in 'localhost:99999' is out of range (1 to 65535)"


# ---------------------------------------------------------------------- [tool.warp_ct]
MISSPELT = '[tool.warp_ct]\nselect = ["WCT003"]\n'


def test_misspelt_tool_table_warns_once(cli, project):
    pyproject = project.write("pyproject.toml", MISSPELT)
    project.write("bad.py", WCT005_SOURCE)
    run = cli("lint", "bad.py")
    warning = f"warp-ct: warning: {pyproject.resolve()}: [tool.warp_ct] is ignored: did you mean [tool.warp-ct]?\n"
    assert run.err == warning
    assert run.rc == 1 and "WCT005" in run.out  # ignored indeed: the default selection ran
    assert cli("lint", "-q", "bad.py").err == ""  # -q: no notes, no warnings
    project.write("pyproject.toml", MISSPELT.replace("warp_ct", "warp-ct"))
    run = cli("lint", "bad.py")
    assert (run.rc, run.err) == (0, "")  # spelt right: used, and nothing to say


def test_misspelt_tool_table_passed_over_on_the_way_to_a_config_warns(cli, project):
    project.write("pyproject.toml", '[tool.warp-ct]\nignore = ["WCT005"]\n')
    nested = project.write("pkg/pyproject.toml", MISSPELT)
    project.write("pkg/bad.py", WCT005_SOURCE)
    run = cli("lint", "pkg/bad.py")
    assert run.rc == 0, run.out  # the outer, spelt-right table applies
    assert run.err == f"warp-ct: warning: {nested.resolve()}: [tool.warp_ct] is ignored: did you mean [tool.warp-ct]?\n"


def test_misspelt_tool_table_next_to_the_right_one_warns(cli, project):
    project.write("pyproject.toml", '[tool.warp-ct]\nignore = ["WCT005"]\n\n' + MISSPELT)
    project.write("bad.py", WCT005_SOURCE)
    run = cli("lint", "--config", "pyproject.toml", "bad.py")
    assert run.rc == 0
    assert run.err == "warp-ct: warning: pyproject.toml: [tool.warp_ct] is ignored: did you mean [tool.warp-ct]?\n"
