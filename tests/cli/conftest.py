"""Helpers for CLI tests: run ``warp_ct.cli.main`` in-process (capturing stdout/stderr)
or as ``python -m warp_ct`` in a subprocess, inside a temporary project."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from warp_ct.cli import main

ROOT = Path(__file__).resolve().parents[2]

# A Warp file with one WCT005 finding (safe fix) at line 3, column 12.
WCT005_SOURCE = """\
import warp as wp

@wp.kernel(module_options={"enable_backward": False})
def scale(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] * s
"""
FIXED_WCT005_SOURCE = WCT005_SOURCE.replace("@wp.kernel(", '@wp.kernel(module="unique", ')
CLEAN_SOURCE = """\
import warp as wp

@wp.kernel(module="unique", module_options={"enable_backward": False})
def scale(a: wp.array(dtype=float), s: float):
    i = wp.tid()
"""


@dataclass
class Run:
    rc: int
    out: str
    err: str


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch, tmp_path):
    for name in ("WARP_CT_OUTPUT_FORMAT", "NO_COLOR", "FORCE_COLOR", "WARP_CT_DEBUG", "WARP_CT_CACHE_DIR"):
        monkeypatch.delenv(name, raising=False)
    # Keep result caches out of the project directories the tests compare.
    monkeypatch.setenv("WARP_CT_CACHE_DIR", str(tmp_path / ".." / f"{tmp_path.name}-cache"))


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A temp directory as the working directory; ``project.write(name, text)``."""
    monkeypatch.chdir(tmp_path)

    class Project:
        root = tmp_path

        @staticmethod
        def write(name: str, text: str | bytes) -> Path:
            target = tmp_path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(text, bytes):
                target.write_bytes(text)
            else:
                target.write_text(text, encoding="utf-8")
            return target

    return Project()


@pytest.fixture
def cli(capsys, monkeypatch):
    """``cli(*args, stdin=None) -> Run``: the CLI in this process, like a user would run it."""

    def run(*args: str, stdin: str | bytes | None = None) -> Run:
        capsys.readouterr()
        if stdin is not None:
            data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
            fake = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
            monkeypatch.setattr(sys, "stdin", fake)
        rc = main(list(args))
        captured = capsys.readouterr()
        return Run(rc, captured.out, captured.err)

    return run


def run_subprocess(
    args: list[str], cwd: Path, *, stdin: bytes | None = None, env: dict[str, str] | None = None, prefix: tuple[str, ...] = ()
) -> Run:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    full_env.pop("WARP_CT_OUTPUT_FORMAT", None)
    full_env.update(env or {})
    proc = subprocess.run(
        [*prefix, sys.executable, *args], cwd=cwd, input=stdin, capture_output=True, env=full_env, timeout=120
    )
    return Run(proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))


# Root reads and lists anything whatever the mode: these capabilities are what lets it.
_ROOT_POWERS = "-dac_override,-dac_read_search"


def run_where_permissions_apply(args: list[str], cwd: Path) -> Run:
    """``python -m warp_ct ...`` in a subprocess that file modes bind: as is for a user; for
    root, under ``setpriv`` without the capabilities that let root ignore modes (skipped
    where that cannot be done)."""
    if os.geteuid() != 0:
        return run_subprocess(args, cwd)
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root, which reads any file, and setpriv (util-linux) is not there to drop that")
    prefix = (setpriv, f"--inh-caps={_ROOT_POWERS}", f"--bounding-set={_ROOT_POWERS}")
    canary = cwd / ".canary"
    canary.write_text("x")
    canary.chmod(0)
    try:
        check = subprocess.run([*prefix, sys.executable, "-c", f"open({str(canary)!r})"], capture_output=True, timeout=60)
    finally:
        canary.unlink()
    if check.returncode == 0 or b"PermissionError" not in check.stderr:
        pytest.skip("running as root, and setpriv could not drop root's power to read any file here")
    return run_subprocess(args, cwd, prefix=prefix)
