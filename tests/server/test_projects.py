"""A workspace folder holding several projects: the server analyses each open file with its
own project, as `warp-ct lint` does (tests/analyzer/workspace: four independent projects)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient, client_capabilities

from tests.server.helpers import config, open_doc
from warp_ct.analyzer.batch import run_lint
from warp_ct.config import Config

pytestmark = pytest.mark.asyncio(loop_scope="module")

WORKSPACE = Path(__file__).resolve().parents[1] / "analyzer" / "workspace"
OPENED = ["cliapp/cliapp/render.py", "lib/mylib/ops.py", "bwpkg/bwpkg/fields.py", "taper/taper/model.py"]


@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: LanguageClient, tmp_path_factory):
    workspace = tmp_path_factory.mktemp("projects") / "workspace"
    shutil.copytree(WORKSPACE, workspace, ignore=shutil.ignore_patterns("conftest.py", "__pycache__"))
    shutil.copy(WORKSPACE / "lib" / "tests" / "conftest.py", workspace / "lib" / "tests" / "conftest.py")
    params = types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        root_uri=from_fs_path(str(workspace)),
        workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(workspace)), name="ws")],
        initialization_options={"debounceMs": 20},
    )
    await lsp_client.initialize_session(params)
    lsp_client.workspace = workspace  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


@pytest.mark.parametrize("rel", OPENED)
async def test_an_open_file_gets_what_linting_it_reports(client: LanguageClient, rel: str):
    path = client.workspace / rel  # type: ignore[attr-defined]
    diagnostics = await open_doc(client, from_fs_path(str(path)), path.read_text(encoding="utf-8"))
    [result] = run_lint([str(path)], Config(select=("ALL",), root=path.parent))
    expected = sorted((f.rule, f.range.start.line) for f in result.findings)
    assert sorted((d.code, d.range.start.line) for d in diagnostics) == expected
    if rel.startswith(("cliapp", "lib")):
        assert expected, "the CLI's render module and the library keep their WCT010 in their own projects"
