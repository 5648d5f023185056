"""Resolving links once per folder (``warp_ct.fs``) gives what ``os.path.realpath`` gives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from warp_ct.fs import folders_fixed, real_path


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_folders_resolved_once_match_realpath(tmp_path: Path) -> None:
    (tmp_path / "real" / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "real" / "pkg" / "sub" / "mod.py").write_text("", encoding="utf-8")
    (tmp_path / "real" / "pkg" / "a.py").write_text("", encoding="utf-8")
    try:
        (tmp_path / "linked").symlink_to(tmp_path / "real", target_is_directory=True)  # a linked folder
        (tmp_path / "real" / "pkg" / "b.py").symlink_to(tmp_path / "real" / "pkg" / "a.py")  # a linked file
    except OSError:
        pytest.skip("symbolic links are not allowed here")
    paths = [
        tmp_path / "real" / "pkg" / "sub" / "mod.py",
        tmp_path / "linked" / "pkg" / "sub" / "mod.py",
        tmp_path / "linked" / "pkg" / "a.py",
        tmp_path / "linked" / "pkg" / "b.py",
        tmp_path / "real" / "pkg" / "b.py",
    ]
    with folders_fixed():
        answers = [real_path(str(path)) for path in paths + paths]  # the second time from the cache
    assert answers == [os.path.realpath(path) for path in paths + paths]
