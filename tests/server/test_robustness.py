"""A raising rule, an exploding linter and garbage input never kill the server."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient

from tests.server.helpers import close_doc, config, mark, open_doc, start_session, wait_for, wait_publish

pytestmark = pytest.mark.asyncio(loop_scope="module")

SOURCE = '''import warp as wp

@wp.kernel(module_options={"enable_backward": False})
def a(x: wp.array(dtype=float)):
    x[wp.tid()] = 1.0
'''

CRASHING = [sys.executable, str(Path(__file__).with_name("crashing_server.py"))]


@pytest_lsp.fixture(config=config(CRASHING), scope="module")
async def client(lsp_client: LanguageClient, tmp_path_factory):
    workspace = tmp_path_factory.mktemp("ws-crash")
    lsp_client.workspace = workspace  # type: ignore[attr-defined]
    await start_session(lsp_client, workspace)
    yield
    await lsp_client.shutdown_session()


async def test_raising_rule_is_reported_and_others_still_run(client: LanguageClient):
    uri = from_fs_path(str(client.workspace / "ok.py"))  # type: ignore[attr-defined]
    diagnostics = await open_doc(client, uri, SOURCE)
    codes = {d.code for d in diagnostics}
    assert "WCT005" in codes and "WCT901" in codes
    crash = next(d for d in diagnostics if d.code == "WCT901")
    assert "WCT999" in crash.message and crash.code_description is None
    close_doc(client, uri)


async def test_exploding_linter_logs_and_answers_with_errors(client: LanguageClient):
    uri = from_fs_path(str(client.workspace / "explode_me.py"))  # type: ignore[attr-defined]
    before = len(client.log_messages)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=SOURCE))
    )
    await wait_for(
        lambda: any("exploded on purpose" in m.message and m.type == types.MessageType.Error for m in client.log_messages[before:]),
        what="the error in window/logMessage",
    )
    with pytest.raises(JsonRpcException):
        await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=types.Range(start=types.Position(line=2, character=0), end=types.Position(line=2, character=0)),
                context=types.CodeActionContext(diagnostics=[]),
            )
        )
    close_doc(client, uri)
    # the server still works
    other = from_fs_path(str(client.workspace / "after.py"))  # type: ignore[attr-defined]
    assert any(d.code == "WCT005" for d in await open_doc(client, other, SOURCE))
    close_doc(client, other)


async def test_garbage_documents(client: LanguageClient):
    cases = {
        "syntax.py": "import warp as wp\n@wp.kernel(module_options={\ndef broken(:\n",
        "nul.py": "import warp as wp\nx = '\0'\n",
        # (this server's extra rule has no text trigger, so astroid parses the whole file)
        "big.py": "import warp as wp\n" + "x = 1\n" * 5_000,
        "big_no_warp.py": "import os\n" + "x = 1\n" * 50_000,
        "notes.txt": "not python",
    }
    for name, text in cases.items():
        uri = from_fs_path(str(client.workspace / name))  # type: ignore[attr-defined]
        start = mark(client)
        language = "plaintext" if name.endswith(".txt") else "python"
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text))
        )
        if language == "python":
            await wait_publish(client, uri, after=start, version=1)
        close_doc(client, uri)
    uri = from_fs_path(str(client.workspace / "still_alive.py"))  # type: ignore[attr-defined]
    assert any(d.code == "WCT005" for d in await open_doc(client, uri, SOURCE))
    assert not [p for _t, p in client.published if p.uri.endswith("notes.txt") and p.diagnostics]  # type: ignore[attr-defined]
