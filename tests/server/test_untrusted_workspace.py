"""A folder opened in the editor is untrusted input (issue 35): a cloned repository that
commits payloads at every path warp-ct's caches use gets its code run by nobody.

The workspace is a real two-file project whose lint cache was written by a real run and
then replaced, entry by entry, with a pickle that creates a marker file when loaded; the
measurement history holds a planted report and a link out of the tree. The language server
(a real subprocess over stdio) opens the files and must publish the findings of a clean run,
leave the marker uncreated and remove nothing outside the tree.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient

from tests.server.helpers import config, open_doc, server_env, start_session

pytestmark = pytest.mark.asyncio(loop_scope="module")

LIB = """import warp as wp

@wp.kernel
def shift(a: wp.array(dtype=float)):
    a[wp.tid()] = a[wp.tid()] + 1.0
"""
APP = """import warp as wp

@wp.kernel(module_options={"enable_backward": False})
def scale(a: wp.array(dtype=float), s: float):
    a[wp.tid()] = a[wp.tid()] * s

from lib import shift
"""


class _RunsCode:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> tuple[Path, Path, Path]:
    base = tmp_path_factory.mktemp("untrusted")
    repo = base / "cloned"
    repo.mkdir()
    (repo / "pyproject.toml").write_text('[project]\nname = "cloned"\n', encoding="utf-8")
    (repo / "lib.py").write_text(LIB, encoding="utf-8")
    (repo / "app.py").write_text(APP, encoding="utf-8")
    env = server_env() | {"XDG_CACHE_HOME": str(base / "user-cache")}
    env.pop("WARP_CT_CACHE_DIR", None)
    # A real run writes the cache the repository would commit.
    subprocess.run([sys.executable, "-m", "warp_ct", "lint", "--exit-zero", "."], cwd=repo, env=env,
                   check=True, capture_output=True)  # fmt: skip
    marker = base / "payload-ran"
    payload = pickle.dumps(_RunsCode(str(marker)), protocol=pickle.HIGHEST_PROTOCOL)
    entries = [p for p in (repo / ".warp_ct_cache").rglob("*") if p.is_file() and p.suffix in (".pickle", ".json")]
    assert entries, "the lint run wrote cache entries to replace"
    for entry in entries:
        entry.write_bytes(payload)
    history = repo / ".warp_ct_cache" / "measurements"
    (history / "20200101T000000000000Z-measure-abcdef").mkdir(parents=True)
    (history / "20200101T000000000000Z-measure-abcdef" / "report.json").write_bytes(payload)
    precious = base / "precious"
    precious.mkdir()
    (precious / "keep.txt").write_text("mine", encoding="utf-8")
    (history / "20200101T000000000001Z-measure-abcdef").symlink_to(precious, target_is_directory=True)
    return repo, marker, precious


@pytest_lsp.fixture(config=config())
async def client(lsp_client: LanguageClient, planted):
    repo, _marker, _precious = planted
    await start_session(lsp_client, repo)
    yield
    await lsp_client.shutdown_session()


async def test_planted_cache_entries_run_nothing_and_hide_nothing(client: LanguageClient, planted):
    repo, marker, precious = planted
    app = await open_doc(client, from_fs_path(str(repo / "app.py")), APP)
    assert [d.code for d in app] == ["WCT005"]
    await open_doc(client, from_fs_path(str(repo / "lib.py")), LIB)
    assert not marker.exists(), "a planted pickle was loaded"
    assert (precious / "keep.txt").read_text(encoding="utf-8") == "mine"
