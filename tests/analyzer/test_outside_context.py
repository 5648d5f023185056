"""Kernels a project imports from outside it: another project of the same repository, or a
package on the interpreter's path, read as read-only context (``analyzer/outside.py``).

The application ``app`` (its own ``pyproject.toml``) launches the two kernels of a library
``shading`` at block_dims 256 (the default) and 64: one Warp module, built twice on a GPU
(WCT009). Where the library may be found, and where it may not, decides whether that is said.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.analyzer.helpers import write_files
from warp_ct.analyzer.batch import run_lint
from warp_ct.analyzer.coverage import measure_paths
from warp_ct.analyzer.outside import MAX_LEVELS, OutsideModules, folders_above, installed_package, still_valid
from warp_ct.config import Config

PROJECT = "[project]\nname = '{}'\nversion = '0.1'\n"
# The library's kernels are the probe fixture's (measured there: one module, built per block_dim).
FIXTURE = Path(__file__).parents[1] / "programs" / "sibling_library_block_dims"
KERNELS = (FIXTURE / "lib" / "shading" / "kernels.py").read_text(encoding="utf-8")
APP = """\
import warp as wp

from shading import clamp
from shading.kernels import tint


def develop(pixels):
    wp.launch(tint, dim=pixels.shape, inputs=[pixels, 1.5])
    wp.launch(clamp, dim=pixels.shape, inputs=[pixels, 0.0, 1.0], block_dim=64)
"""
LIBRARY = {
    "shading/__init__.py": "from shading.kernels import clamp, tint\n",
    "shading/kernels.py": KERNELS,
}


def _library(folder: Path, *, marked: bool = True) -> None:
    write_files(folder, {**LIBRARY, **({"pyproject.toml": PROJECT.format("shading")} if marked else {})})


def _app(folder: Path) -> None:
    write_files(folder, {"pyproject.toml": PROJECT.format("darkroom"), "darkroom/__init__.py": "",
                         "darkroom/develop.py": APP})  # fmt: skip


def _findings(paths: list[Path], **kwargs) -> set[tuple[str, int, str]]:
    results = run_lint([str(p) for p in paths], Config(select=("WCT009",)), **kwargs)
    return {(Path(f.path).name, f.range.start.line + 1, f.rule) for r in results for f in r.findings}


def _external(app: Path) -> int:
    [coverage] = measure_paths([str(app)], Config())
    return len(coverage.external)


SPREAD = {("develop.py", 9, "WCT009")}


def test_a_sibling_project_of_the_repository_answers_for_its_kernels(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _library(tmp_path / "libs" / "shading")
    _app(tmp_path / "libs" / "app")
    app = tmp_path / "libs" / "app"
    assert _findings([app]) == SPREAD
    assert _external(app) == 0
    # Never reported, never a launcher: linting the library alone says nothing of the app.
    assert _findings([tmp_path / "libs" / "shading"]) == set()


def test_a_package_in_a_folder_above_the_project_answers(tmp_path: Path) -> None:
    _library(tmp_path / "repo", marked=False)  # repo/shading/__init__.py, beside the project's folder
    _app(tmp_path / "repo" / "app")
    assert _findings([tmp_path / "repo" / "app"]) == SPREAD


def test_the_repository_bounds_the_search(tmp_path: Path) -> None:
    _library(tmp_path / "outer", marked=False)  # outer/shading: above the repository
    (tmp_path / "outer" / "repo" / ".git").mkdir(parents=True)
    _app(tmp_path / "outer" / "repo" / "app")
    app = tmp_path / "outer" / "repo" / "app"
    assert [Path(folder).name for folder in folders_above(str(app))] == ["repo"]
    assert _findings([app]) == set()
    assert _external(app) == 2  # as before: kernels of a package outside the project


def test_the_search_stops_after_a_few_folders(tmp_path: Path) -> None:
    _library(tmp_path, marked=False)
    deep = tmp_path.joinpath(*[f"level{i}" for i in range(MAX_LEVELS)], "app")
    _app(deep)
    assert len(folders_above(str(deep))) == MAX_LEVELS
    assert _findings([deep]) == set()


def test_two_sibling_projects_holding_the_package_are_ambiguous(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _library(tmp_path / "shading_a")
    _library(tmp_path / "shading_b")
    _app(tmp_path / "app")
    assert _findings([tmp_path / "app"]) == set()


def test_a_package_on_the_interpreters_path_answers(tmp_path: Path, monkeypatch) -> None:
    site = tmp_path / "site-packages"
    _library(site, marked=False)
    (tmp_path / "work" / ".git").mkdir(parents=True)
    _app(tmp_path / "work" / "app")
    monkeypatch.syspath_prepend(str(site))
    assert installed_package("shading", [str(site)]) == str(site / "shading")
    assert _findings([tmp_path / "work" / "app"]) == SPREAD


def test_nothing_is_imported_or_run_to_find_a_package(tmp_path: Path) -> None:
    site = tmp_path / "site"
    write_files(site, {"trap/__init__.py": "raise SystemExit('imported')\n", "trap/kernels.py": KERNELS})
    modules = OutsideModules(None, lambda top: False, lambda path, text, module: None, path=[str(site)])
    assert modules.locate("trap.kernels") == str(site / "trap" / "kernels.py")
    assert "trap" not in __import__("sys").modules


def test_warp_and_the_projects_own_packages_are_never_context(tmp_path: Path) -> None:
    _library(tmp_path / "site", marked=False)
    modules = OutsideModules(None, {"shading"}.__contains__, lambda path, text, module: None, path=[str(tmp_path / "site")])
    assert modules.locate("shading.kernels") is None
    assert modules.locate("warp.sim.collide") is None


def test_not_found_stays_outside_the_project(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _app(tmp_path / "app")
    assert _findings([tmp_path / "app"]) == set()
    assert _external(tmp_path / "app") == 2


def test_linted_alone_or_together_the_app_finds_the_same(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _library(tmp_path / "shading")
    _app(tmp_path / "app")
    alone = _findings([tmp_path / "app"])
    assert alone == SPREAD
    assert _findings([tmp_path]) == alone == _findings([tmp_path / "app" / "darkroom" / "develop.py"])


def test_a_changed_context_file_invalidates_the_cached_results(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    _library(tmp_path / "repo" / "shading")
    _app(tmp_path / "repo" / "app")
    app, cache = tmp_path / "repo" / "app", tmp_path / "cache"
    assert _findings([app], cache_dir=cache) == SPREAD
    assert _findings([app], cache_dir=cache) == SPREAD  # warm
    kernels = tmp_path / "repo" / "shading" / "shading" / "kernels.py"
    # clamp gets a module of its own: one block_dim per module, nothing to say.
    kernels.write_text(KERNELS.replace("@wp.kernel\ndef clamp", '@wp.kernel(module="unique")\ndef clamp'), encoding="utf-8")
    assert _findings([app], cache_dir=cache) == set()


def test_a_lookup_is_valid_while_it_finds_the_same_bytes(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _library(tmp_path / "shading")
    root = str(tmp_path / "app")
    os.makedirs(root)
    modules = OutsideModules(root, lambda top: False, lambda path, text, module: None)
    modules.facts("shading.kernels")
    modules.facts("shading.missing")
    lookups = modules.lookups()
    assert [(module, path is not None) for module, path, _digest in lookups] == [("shading.kernels", True), ("shading.missing", False)]
    assert still_valid(root, lookups)
    (tmp_path / "shading" / "shading" / "missing.py").write_text("", encoding="utf-8")
    assert not still_valid(root, lookups)  # found now
    os.remove(tmp_path / "shading" / "shading" / "missing.py")
    (tmp_path / "shading" / "shading" / "kernels.py").write_text(KERNELS + "\n", encoding="utf-8")
    assert not still_valid(root, lookups)  # other bytes


def test_an_object_named_like_a_package_is_no_package(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _library(tmp_path / "shading")
    write_files(tmp_path / "app", {"pyproject.toml": PROJECT.format("darkroom"), "darkroom/__init__.py": "",
                                   "darkroom/develop.py": OBJECT_APP})  # fmt: skip
    assert _findings([tmp_path / "app"]) == set()
    [coverage] = measure_paths([str(tmp_path / "app")], Config())
    assert coverage.resolved == 0


OBJECT_APP = """\
import warp as wp

from darkroom.looks import make_look

shading = make_look()  # an object of the project, not the library beside it


def develop(pixels):
    wp.launch(shading.tint, dim=pixels.shape, inputs=[pixels, 1.5])
    wp.launch(shading.clamp, dim=pixels.shape, inputs=[pixels, 0.0, 1.0], block_dim=64)
"""


def test_a_module_name_is_never_a_path(tmp_path: Path) -> None:
    _library(tmp_path / "site", marked=False)
    modules = OutsideModules(None, lambda top: False, lambda path, text, module: None, path=[str(tmp_path / "site")])
    assert modules.locate(f"shading.{tmp_path}/site/shading/kernels") is None
    assert modules.locate("shading..kernels") is None


def test_the_librarys_own_default_block_dim_is_read(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _library(tmp_path / "shading")
    kernels = tmp_path / "shading" / "shading" / "kernels.py"
    kernels.write_text(KERNELS + '\nwp.set_module_options({"block_dim": 64})\n', encoding="utf-8")
    _app(tmp_path / "app")
    assert _findings([tmp_path / "app"]) == set()  # tint at the module's default, 64, and clamp at 64: one build
    kernels.write_text(KERNELS + '\nwp.set_module_options({"block_dim": 128})\n', encoding="utf-8")
    assert _findings([tmp_path / "app"]) == SPREAD  # 128 and 64


def test_a_block_dim_its_package_may_set_leaves_the_default_unknown(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _library(tmp_path / "shading")
    init = tmp_path / "shading" / "shading" / "__init__.py"
    init.write_text('import warp as wp\n\nwp.set_module_options({"block_dim": 64}, module="shading.kernels")\n'
                    + LIBRARY["shading/__init__.py"], encoding="utf-8")  # fmt: skip
    _app(tmp_path / "app")
    assert _findings([tmp_path / "app"]) == set()


def test_only_what_may_be_found_outside_is_kept_for_a_cache(tmp_path: Path) -> None:
    _library(tmp_path / "site", marked=False)
    modules = OutsideModules(None, {"darkroom"}.__contains__, lambda path, text, module: None, path=[str(tmp_path / "site")])
    for module in ("darkroom.develop", "warp.sim", "shading.kernels"):
        modules.facts(module)
    assert [lookup[0] for lookup in modules.lookups()] == ["shading.kernels"]
