"""The paths choose what is reported; each file is analysed with its own project.

``workspace/`` holds four independent projects:

- ``cliapp``: an application whose ``__main__`` dispatches subcommands; ``fast`` turns backward
  code off (too late: WCT001) and renders, ``render`` renders with backward code on, ``train``
  differentiates its own module;
- ``lib``: a library with a pytest suite whose ``conftest.py`` turns backward code off for the
  tests, which says nothing of the library's own callers;
- ``bwpkg``: a package whose ``__init__`` turns backward code off before importing its kernels;
- ``taper``: an application with a tape over its model (one module, differentiated).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from warp_ct.analyzer.batch import run_lint
from warp_ct.analyzer.scope import project_files, scope_root, scopes_of
from warp_ct.config import Config

WORKSPACE = Path(__file__).resolve().parent / "workspace"
PROJECTS = ("bwpkg", "cliapp", "lib", "taper")
EXPECTED = {
    "bwpkg": set(),
    "cliapp": {("cliapp/cliapp/__main__.py", 10, "WCT001"), ("cliapp/cliapp/render.py", 4, "WCT010")},
    "lib": {("lib/mylib/ops.py", 4, "WCT010")},
    "taper": set(),
}


def _findings(paths: list[Path]) -> set[tuple[str, int, str, str]]:
    config = Config(select=("ALL",), root=WORKSPACE)
    results = run_lint([str(p) for p in paths], config)
    return {(Path(f.path).resolve().relative_to(WORKSPACE).as_posix(), f.range.start.line + 1, f.rule, f.message)
            for r in results for f in r.findings}  # fmt: skip


def _where(findings: set[tuple[str, int, str, str]]) -> set[tuple[str, int, str]]:
    return {(path, line, code) for path, line, code, _message in findings}


@pytest.fixture(scope="module")
def alone() -> dict[str, set[tuple[str, int, str, str]]]:
    return {name: _findings([WORKSPACE / name]) for name in PROJECTS}


@pytest.mark.parametrize("name", PROJECTS)
def test_each_project_alone_finds_what_its_own_runs_do(name: str, alone) -> None:
    assert _where(alone[name]) == EXPECTED[name]


def test_linted_together_the_findings_are_the_union_of_each_alone(alone) -> None:
    together = _findings([WORKSPACE / name for name in PROJECTS])
    assert together == set().union(*alone.values())
    assert _findings([WORKSPACE]) == together  # the folder above them: the same four projects


@pytest.mark.parametrize("name", PROJECTS)
def test_a_file_linted_alone_gets_its_part_of_the_project_lint(name: str, alone) -> None:
    for path in sorted((WORKSPACE / name).rglob("*.py")):
        part = {f for f in alone[name] if f[0] == path.relative_to(WORKSPACE).as_posix()}
        assert _findings([path]) == part, path


def test_a_project_file_marks_the_project_and_nested_projects_stay_out(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'outer'\n", encoding="utf-8")
    for rel in ("src/app/__init__.py", "src/app/main.py", "scripts/run.py", "vendored/setup.py", "vendored/v/__init__.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("", encoding="utf-8")
    cache: dict = {}
    assert scope_root(str(tmp_path / "src/app/main.py"), cache) == (tmp_path, True)
    assert scope_root(str(tmp_path / "vendored/v/__init__.py"), cache) == (tmp_path / "vendored", True)
    [scope] = scopes_of([str(tmp_path / "scripts/run.py")])
    files = [Path(p).relative_to(tmp_path).as_posix() for p in project_files(scope, Config(root=tmp_path))]
    assert files == ["scripts/run.py", "src/app/__init__.py", "src/app/main.py"]


def test_without_a_project_file_a_script_is_analysed_with_what_it_can_import(tmp_path: Path) -> None:
    for rel in ("run.py", "helpers.py", "pkg/__init__.py", "pkg/sub/k.py", "notes/old.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("", encoding="utf-8")
    [scope] = scopes_of([str(tmp_path / "run.py"), os.path.relpath(tmp_path / "pkg/sub/k.py")])
    assert (scope.root, scope.marked, scope.reported) == (tmp_path.resolve(), False, [0, 1])
    files = [Path(p).relative_to(tmp_path.resolve()).as_posix() for p in project_files(scope, Config(root=tmp_path))]
    assert files == ["helpers.py", "pkg/__init__.py", "pkg/sub/k.py", "run.py"]  # not notes/: no package


def test_an_installed_package_is_a_project_of_its_own(tmp_path: Path) -> None:
    # `warp-ct lint <site-packages>/warp` analysed every distribution installed beside warp.
    site = tmp_path / "lib" / "site-packages"
    for rel in ("warp/__init__.py", "warp/_src/k.py", "numpy/__init__.py", "six.py"):
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text("", encoding="utf-8")
    [scope] = scopes_of([str(site / "warp/_src/k.py"), str(site / "warp/__init__.py")])
    assert (scope.root, scope.marked) == ((site / "warp").resolve(), True)
    files = [Path(p).relative_to(site.resolve()).as_posix() for p in project_files(scope, Config(root=site))]
    assert files == ["warp/__init__.py", "warp/_src/k.py"]


def test_discovery_names_files_as_pathlib_does(tmp_path, monkeypatch):
    from warp_ct.analyzer.engine import discover
    from warp_ct.config import Config

    for name in ("app/__init__.py", "app/sub/m.py", "x.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    monkeypatch.chdir(tmp_path / "app")
    config = Config(root=tmp_path)
    expected = {".": ["__init__.py", "sub/m.py"], "./": ["__init__.py", "sub/m.py"], "sub/": ["sub/m.py"],
                "./sub": ["sub/m.py"], "..": ["../app/__init__.py", "../app/sub/m.py", "../x.py"],
                "../x.py": ["../x.py"], "./sub/m.py": ["sub/m.py"]}  # fmt: skip
    for given, files in expected.items():
        assert discover([given], config) == files, given


def test_a_folder_named_explicitly_is_linted_whatever_the_folders_above_it_are_called(tmp_path, monkeypatch):
    """`lint app <site-packages>/pkg/examples` linted nothing of the second path (its folders
    matched the default exclude `site-packages` from the config root), while the other order
    linted it: what is analysed must not depend on the order of the paths."""
    from warp_ct.analyzer.engine import discover

    site = tmp_path / "lib" / "site-packages" / "pkg" / "examples"
    for path in (site / "demo.py", site / "build" / "gen.py", tmp_path / "app" / "run.py"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")
    monkeypatch.chdir(tmp_path)
    config = Config(root=tmp_path)
    both = [discover(["app", str(site)], config), discover([str(site), "app"], config)]
    assert both[0] == both[1] == sorted(["app/run.py", str(site / "demo.py")])  # build/ below it stays excluded
