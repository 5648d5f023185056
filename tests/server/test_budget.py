"""The per-file time budget on the server's analysis thread, where only the cooperative
checks stop a file: the file over it gets a WCT901 naming it, the other files exactly the
diagnostics they get without a budget."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient

from tests.perf.generate import OVER_BUDGET_S, one_file_over_budget
from tests.server.helpers import close_doc, config, open_doc, start_session
from warp_ct.analyzer.batch import run_lint
from warp_ct.config import Config

pytestmark = pytest.mark.asyncio(loop_scope="module")

BUDGET_SERVER = [sys.executable, str(Path(__file__).with_name("budget_server.py"))]


@pytest_lsp.fixture(config=config(BUDGET_SERVER), scope="module")
async def client(lsp_client: LanguageClient, tmp_path_factory):
    workspace = tmp_path_factory.mktemp("ws-budget")
    lsp_client.files = one_file_over_budget(workspace)  # type: ignore[attr-defined]
    await start_session(lsp_client, workspace)
    yield
    await lsp_client.shutdown_session()


async def test_a_file_over_its_budget_gets_wct901_and_the_other_file_is_unaffected(client: LanguageClient):
    slow, quick = client.files  # type: ignore[attr-defined]
    diagnostics = {}
    for path in (slow, quick):  # the slow one first: what it left behind in the model is met
        uri = from_fs_path(path)
        diagnostics[path] = await open_doc(client, uri, Path(path).read_text(encoding="utf-8"))
        close_doc(client, uri)
    stops = [d for d in diagnostics[slow] if d.code == "WCT901"]
    assert len(stops) == 1, diagnostics[slow]
    assert f"time budget of {OVER_BUDGET_S:g} s of CPU time" in stops[0].message
    [whole] = run_lint([quick], Config(root=Path(quick).parent))  # no budget at all
    assert whole.findings
    assert sorted((d.code, d.range.start.line, d.message) for d in diagnostics[quick]) == sorted(
        (f.rule, f.range.start.line, f.message) for f in whole.findings
    )
