"""How ``--fix`` writes a file that has other names, and a file another run is fixing too
(issue 35): a hard-linked file is rewritten in place (every name sees the fix, the inode and
mode stay); a symbolic link is written through only to a file inside the project or the
linted paths, never out of them (a cloned repository's link must not let ``--fix`` edit the
user's other files); and the bytes are compared again under an ``flock`` right before the
write, so two runs at once count only what each changed."""

from __future__ import annotations

import fcntl
import json
import os
import stat
import subprocess
import sys
import threading
import time

import pytest

from warp_ct import lint_command
from warp_ct.cli import main

from .conftest import FIXED_WCT005_SOURCE, ROOT, WCT005_SOURCE


# ---------------------------------------------------------------------- hard links
def test_fix_keeps_a_hard_linked_file_one_file(cli, project, tmp_path_factory):
    target = project.write("bad.py", WCT005_SOURCE)
    target.chmod(0o751)
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "same_file.py"
    os.link(target, elsewhere)
    inode = target.stat().st_ino
    run = cli("lint", "--fix", "--no-cache", "bad.py")
    assert (run.rc, run.out, run.err) == (0, "Fixed 1 finding (0 remaining).\n", "")
    assert target.stat().st_ino == inode and elsewhere.stat().st_ino == inode
    assert target.stat().st_nlink == 2
    assert elsewhere.read_text() == FIXED_WCT005_SOURCE  # the other name sees the fix
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert sorted(os.listdir(project.root)) == ["bad.py"]  # no temp file


def test_fix_rewrites_a_hard_linked_file_to_its_new_length(cli, project):
    # The fixed text can be shorter than the old one: nothing of the old may remain after it.
    longer = WCT005_SOURCE + "# " + "x" * 400 + "\n"
    target = project.write("bad.py", FIXED_WCT005_SOURCE.replace('module="unique", ', "") + "# " + "x" * 400 + "\n")
    assert target.read_text() == longer
    os.link(target, project.root / "alias.txt")  # not a .py: linted once, by its first name
    shorter = FIXED_WCT005_SOURCE + "# " + "x" * 400 + "\n"
    assert cli("lint", "--fix", "--no-cache", "bad.py").rc == 0
    assert (project.root / "alias.txt").read_bytes() == shorter.encode()


def test_fix_still_replaces_a_file_with_one_link(cli, project, monkeypatch):
    target = project.write("bad.py", WCT005_SOURCE)
    inode = target.stat().st_ino
    replaced = []
    real_replace = os.replace
    monkeypatch.setattr(lint_command.os, "replace", lambda src, dst: (replaced.append(dst), real_replace(src, dst)))
    assert cli("lint", "--fix", "--no-cache", "bad.py").rc == 0
    assert replaced == [str(target)] and target.read_text() == FIXED_WCT005_SOURCE
    assert target.stat().st_ino != inode  # written whole, then renamed over it: never half-written


# ---------------------------------------------------------------------- symbolic links
@pytest.fixture
def outside(tmp_path_factory):
    """A file outside the project, with a finding --fix would fix."""
    path = tmp_path_factory.mktemp("someone_elses") / "their_module.py"
    path.write_text(WCT005_SOURCE)
    path.chmod(0o640)
    return path


def test_fix_never_writes_through_a_link_out_of_the_project(cli, project, outside):
    project.write("pyproject.toml", "[tool.warp-ct]\n")
    project.write("pkg/mine.py", WCT005_SOURCE)
    (project.root / "pkg" / "linked.py").symlink_to(outside)
    before = outside.stat()
    run = cli("lint", "--fix", "--no-cache", ".")
    assert outside.read_text() == WCT005_SOURCE and outside.stat().st_ino == before.st_ino
    assert stat.S_IMODE(outside.stat().st_mode) == 0o640
    assert (project.root / "pkg/mine.py").read_text() == FIXED_WCT005_SOURCE
    assert (project.root / "pkg/linked.py").is_symlink()
    assert run.err == f"pkg/linked.py: note: not fixed: it links to {outside}, outside the project and the linted paths\n"
    assert run.out.splitlines() == [  # what was not fixed is still reported
        'pkg/linked.py:3:12: WCT005 [*] `module_options=` needs `module="unique"`: Warp raises ValueError at import without it',
        "Fixed 1 finding (1 remaining).",
    ]
    assert run.rc == 1


def test_fix_never_writes_through_a_named_link_out_of_the_project(cli, project, outside):
    # pre-commit names the files; the pyproject.toml beside the link's target is another
    # project's, and does not make the target part of this one.
    (outside.parent / "pyproject.toml").write_text("[tool.warp-ct]\n")
    (project.root / "linked.py").symlink_to(outside)
    run = cli("lint", "--fix", "--no-cache", "linked.py")
    assert outside.read_text() == WCT005_SOURCE
    assert "linked.py: note: not fixed: it links to" in run.err and run.rc == 1


def test_fix_writes_through_a_link_within_the_project(cli, project):
    project.write("pyproject.toml", "[tool.warp-ct]\n")
    shared = project.write("shared/impl.py", WCT005_SOURCE)
    (project.root / "src").mkdir()
    (project.root / "src" / "impl.py").symlink_to(os.path.join("..", "shared", "impl.py"))
    run = cli("lint", "--fix", "--no-cache", "src")  # only the link's folder is linted
    assert (run.rc, run.err) == (0, "")
    assert shared.read_text() == FIXED_WCT005_SOURCE
    assert os.readlink(project.root / "src" / "impl.py") == os.path.join("..", "shared", "impl.py")


def test_fix_follows_a_link_into_a_folder_named_on_the_command_line(cli, project, outside):
    (project.root / "linked.py").symlink_to(outside)
    run = cli("lint", "--fix", "--no-cache", "linked.py", str(outside.parent))
    assert outside.read_text() == FIXED_WCT005_SOURCE and run.rc == 0  # the user named that folder


def test_fix_follows_a_folder_link_named_on_the_command_line(cli, project, outside):
    (project.root / "theirs").symlink_to(outside.parent)
    run = cli("lint", "--fix", "--no-cache", "theirs")
    assert outside.read_text() == FIXED_WCT005_SOURCE and run.rc == 0  # named, so chosen


# ---------------------------------------------------------------------- concurrent runs
def test_a_run_that_finds_its_fixes_already_written_counts_none(cli, project, monkeypatch):
    # Two runs read the file before either writes: the second to write finds the first's
    # fix on disk. Deterministic: the other run is started right before this one writes.
    target = project.write("bad.py", WCT005_SOURCE)
    real_write = lint_command.FileFix.write
    started, other_runs = [], []

    def another_run_writes_first(self, roots):
        if not started:  # once: the other run's own write goes straight through
            started.append(True)
            other_runs.append(main(["lint", "--fix", "--no-cache", "bad.py"]))
        return real_write(self, roots)

    monkeypatch.setattr(lint_command.FileFix, "write", another_run_writes_first)
    run = cli("lint", "--fix", "--no-cache", "bad.py")
    assert other_runs == [0]
    assert "Fixed 1 finding (0 remaining)." in run.out  # the other run's line
    assert run.out.count("Fixed") == 1  # this run's own summary counts nothing
    assert run.out.endswith("All checks passed!\n")
    assert run.err == ""  # not "the file changed after warp-ct read it": it is what we would write
    assert target.read_text() == FIXED_WCT005_SOURCE


def _waiting_for_flock(pid: int, inode: int) -> bool:
    """Whether process ``pid`` is blocked on an flock of the file with ``inode`` (/proc/locks:
    a waiter's line has ``->`` and FLOCK, then the pid and dev:inode)."""
    with open("/proc/locks") as locks:
        for line in locks:
            fields = line.split()
            if "->" in fields and "FLOCK" in fields:
                at = fields.index("FLOCK")
                if fields[at + 3] == str(pid) and fields[at + 4].rsplit(":", 1)[-1] == str(inode):
                    return True
    return False


@pytest.mark.skipif(not os.path.exists("/proc/locks"), reason="needs /proc/locks (Linux) to see the run wait")
def test_fix_rereads_the_file_under_its_lock(project):
    # The real command, against another writer holding the file's lock: it waits, then
    # finds the file replaced by the fixed text, opens it again and counts nothing.
    target = project.write("bad.py", WCT005_SOURCE)
    inode = target.stat().st_ino
    holder = open(target, "rb")
    fcntl.flock(holder, fcntl.LOCK_EX)
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "warp_ct", "lint", "--fix", "--no-cache", "-j", "1", "bad.py"],
        cwd=project.root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not _waiting_for_flock(proc.pid, inode):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the run never waited for the lock"
            time.sleep(0.02)
        # Like another warp-ct run: the fixed text renamed over the file, under the lock.
        replacement = project.root / ".bad.py.other-run.tmp"
        replacement.write_text(FIXED_WCT005_SOURCE)
        os.replace(replacement, target)
    finally:
        fcntl.flock(holder, fcntl.LOCK_UN)
        holder.close()
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, out.decode(), err.decode()) == (0, "All checks passed!\n", "")
    assert target.read_text() == FIXED_WCT005_SOURCE


def test_two_runs_at_once_count_each_fix_once(project):
    # Many files, two real runs started together: however they interleave, each fix is
    # written once and counted once between them.
    count = 30
    for index in range(count):
        project.write(f"m{index:02}.py", WCT005_SOURCE)
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    command = [sys.executable, "-m", "warp_ct", "lint", "--fix", "--no-cache", "-j", "1", "--output-format", "json", "."]
    outputs = [None, None]

    def run(slot: int) -> None:
        outputs[slot] = subprocess.run(command, cwd=project.root, env=env, capture_output=True, timeout=120)

    threads = [threading.Thread(target=run, args=(slot,)) for slot in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    fixed = [json.loads(done.stdout)["summary"]["fixed"] for done in outputs]
    assert sum(fixed) == count, (fixed, [done.stderr for done in outputs])
    assert all(done.returncode == 0 for done in outputs)
    assert all((project.root / f"m{index:02}.py").read_text() == FIXED_WCT005_SOURCE for index in range(count))
