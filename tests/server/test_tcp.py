"""`warp-ct serve --tcp HOST:PORT` listens and speaks LSP."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time

import pytest
from lsprotocol import types
from pygls.lsp.client import LanguageClient

from tests.server.helpers import server_env


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.asyncio(loop_scope="function")
async def test_serve_over_tcp(tmp_path):
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "warp_ct", "serve", "--tcp", f"127.0.0.1:{port}"], env=server_env())
    try:
        client = LanguageClient("tcp-test", "1")
        published: asyncio.Queue = asyncio.Queue()

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_publish(params: types.PublishDiagnosticsParams) -> None:
            published.put_nowait(params)

        # pygls serves one connection per process: connect with the client itself, retrying
        deadline = time.monotonic() + 60
        while True:
            try:
                await client.start_tcp("127.0.0.1", port)
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise AssertionError("the TCP server did not start") from None
                await asyncio.sleep(0.2)
        result = await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=tmp_path.as_uri()))
        assert result.server_info.name == "warp-ct"
        client.initialized(types.InitializedParams())
        text = 'import warp as wp\n\n@wp.kernel(module_options={"enable_backward": False})\ndef k(a: wp.array(dtype=float)):\n    a[wp.tid()] = 1.0\n'
        uri = (tmp_path / "tcp_doc.py").as_uri()
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
        params = await asyncio.wait_for(published.get(), 60)
        assert [d.code for d in params.diagnostics if d.code == "WCT005"] == ["WCT005"]
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    finally:
        proc.terminate()
        proc.wait(10)
