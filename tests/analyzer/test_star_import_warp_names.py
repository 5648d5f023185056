"""Warp names a file gets from a ``*`` import of a project module (sphWarpCore's
``radiusSearch/verlet.py``: ``from .wp_compactHash import *``, no ``import warp`` of its own):
its facts read them as its own aliases, so the model sees its kernels and launches and the
tree rules its decorators; an edit of the exporting module reaches the importer's facts."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from warp_ct.analyzer.engine import Linter, discover, read_source
from warp_ct.config import load_config

from .helpers import lint_files, rule_filter
from .test_incremental import _check_edits

PROGRAMS = Path(__file__).resolve().parents[1] / "programs"
FIXTURE = PROGRAMS / "star_import_warp_names"

HASHING = "import warp as wp\n\n\n@wp.kernel\ndef hash_cells(c: wp.array(dtype=int)):\n    c[wp.tid()] = 1\n"
VERLET = """from .hashing import *


@wp.kernel
def count(c: wp.array(dtype=int)):
    c[wp.tid()] = 2


def run(c):
    wp.launch(count, dim=c.shape[0], inputs=[c])
"""

_wct010 = rule_filter("WCT010")


def _project(root: Path) -> Linter:
    linter = Linter(load_config(root))
    linter.add_to_project(read_source(p) for p in discover([str(root)], linter.config))
    linter.project.freeze()
    return linter


def test_star_imported_wp_names_the_file_kernels_and_launches(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/hashing.py": HASHING, "pkg/verlet.py": VERLET}
    found = _wct010(lint_files(tmp_path, files))
    # (hashing's own kernel is launched by nobody in view: callers elsewhere may differentiate it)
    assert sorted((f.path, f.line) for f in found) == [("pkg/verlet.py", 4)]
    project = _project(tmp_path).project
    facts = project.facts(project.module("pkg.verlet"))
    assert facts.inherited == (("wp", "warp"),)
    assert [k.name for k in facts.kernels] == ["count"] and [launch.function for launch in facts.launches] == ["run"]


def test_only_names_the_module_hands_out_are_inherited(tmp_path):
    # ``__all__`` decides what a ``*`` import takes, which the bindings do not tell; a name the
    # importer binds itself is its own.
    files = {
        "pkg/__init__.py": "",
        "pkg/listed.py": "import warp as wp\n__all__ = ['wp']\n",
        "pkg/private.py": "import warp as _wp\nfrom warp import kernel\n",
        "pkg/a.py": "from .listed import *\n",
        "pkg/b.py": "from .private import *\n",
        "pkg/c.py": "from .private import *\ndef kernel():\n    pass\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    project = _project(tmp_path).project
    names = {m: project.star_warp_names(project.module(m)) for m in ("pkg.a", "pkg.b", "pkg.c")}
    assert names == {"pkg.a": (), "pkg.b": (("kernel", "warp.kernel"),), "pkg.c": ()}


def test_editing_the_exporting_module_reaches_the_importer(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "star", ignore=shutil.ignore_patterns("__pycache__"))
    root = tmp_path / "star"
    edits = [
        ("sph/hashing.py", "wp no longer Warp", "import warp as wp\n", "import warp as wp_\nimport numpy as wp\n"),
        ("sph/hashing.py", "wp Warp again", "import warp as wp_\nimport numpy as wp\n", "import warp as wp\n"),
    ]
    assert _check_edits(root, edits) > 0


def test_cached_facts_find_what_a_cold_lint_finds(tmp_path):
    root = tmp_path / "star"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("__pycache__"))

    def lint(*extra: str) -> list[tuple]:
        result = subprocess.run([sys.executable, "-m", "warp_ct", "lint", "--output-format", "json", "--exit-zero", *extra, "."],
                                cwd=root, capture_output=True, text=True, timeout=120)  # fmt: skip
        assert result.returncode == 0, result.stderr
        return sorted((f["path"], f["location"]["line"], f["code"]) for f in json.loads(result.stdout)["findings"])

    cold = lint("--no-cache")
    assert ("sph/verlet.py", 7, "WCT010") in cold
    assert lint() == cold  # fills the caches
    assert lint() == cold  # from them
