"""The session's lifecycle as LSP has it, over a real `warp-ct serve` (issue 35): a request
before `initialize` gets ServerNotInitialized, a second `initialize` or a request after
`shutdown` gets InvalidRequest, and `shutdown` while a measurement runs stops the measured
command and removes the probe's temp dir before answering null; `exit` then ends with 0.

Each test starts its own server: the lifecycle is the thing under test.
"""

from __future__ import annotations

import asyncio
import glob
import os
import sys
import tempfile
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient, client_capabilities

from tests.server.helpers import config, open_doc, raw_request, start_session, wait_for

pytestmark = pytest.mark.asyncio(loop_scope="module")

SERVER_NOT_INITIALIZED = -32002
INVALID_REQUEST = -32600
# Writes its pid where the test says (whole, by a rename), then sleeps past any test's patience.
SLEEPER = """import os, sys, time
open(sys.argv[1] + ".tmp", "w").write(str(os.getpid()))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(120)
"""
SOURCE = """import warp as wp

@wp.kernel(module_options={"enable_backward": False})
def k(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0
"""


@pytest_lsp.fixture(config=config())
async def client(lsp_client: LanguageClient):
    yield  # each test drives the whole session itself
    server = lsp_client._server  # type: ignore[attr-defined]
    if server is not None and server.returncode is None:  # the test failed before its session ended
        server.kill()  # (pytest-lsp's teardown waits for the server to exit by itself)


def _hover(uri: str) -> types.HoverParams:
    return types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=0))


async def _server_stderr(client: LanguageClient, capfd) -> str:
    """What the server wrote to stderr (pytest-lsp forwards it to this process's stderr),
    complete once the server has exited."""
    forwarder = client._stderr_forwarder  # type: ignore[attr-defined]
    if forwarder is not None and client._server is not None and client._server.returncode is not None:  # type: ignore[attr-defined]
        await asyncio.wait_for(asyncio.shield(forwarder), 10)
    return capfd.readouterr().err


def _assert_no_traceback(client: LanguageClient, stderr: str) -> None:
    assert "Traceback" not in stderr, stderr
    assert not [m.message for m in client.log_messages if "Traceback" in m.message]


async def test_requests_outside_the_session_get_lifecycle_errors(client: LanguageClient, tmp_path, capfd):
    uri = from_fs_path(str(tmp_path / "a.py"))
    with pytest.raises(JsonRpcException) as before:
        await raw_request(client, types.TEXT_DOCUMENT_HOVER, {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
    assert before.value.code == SERVER_NOT_INITIALIZED
    assert before.value.message == "The server is not initialized: 'textDocument/hover' came before 'initialize'."
    # a notification before initialize is dropped (LSP), not acted on later
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=SOURCE))
    )

    await start_session(client, tmp_path)
    with pytest.raises(JsonRpcException) as again:
        await client.initialize_async(types.InitializeParams(capabilities=client_capabilities("visual-studio-code")))
    assert again.value.code == INVALID_REQUEST and "already initialized" in again.value.message
    assert await client.text_document_hover_async(_hover(uri)) is None  # never opened: the didOpen above was dropped
    other = from_fs_path(str(tmp_path / "b.py"))
    assert [d.code for d in await open_doc(client, other, SOURCE) if d.code == "WCT005"] == ["WCT005"]

    assert await client.shutdown_async(None) is None
    with pytest.raises(JsonRpcException) as after:
        await client.text_document_hover_async(_hover(other))
    assert after.value.code == INVALID_REQUEST
    assert after.value.message == "The server is shutting down: 'textDocument/hover' came after 'shutdown'; only 'exit' is served."
    client.exit(None)
    assert await asyncio.wait_for(client._server.wait(), 30) == 0  # type: ignore[attr-defined]
    stderr = await _server_stderr(client, capfd)
    assert "ignored notification 'textDocument/didOpen': The server is not initialized" in stderr
    _assert_no_traceback(client, stderr)


async def _start_measuring(client: LanguageClient, workspace: Path) -> tuple[asyncio.Future, int, list[str]]:
    """Start measuring the sleeper: (the measure request, the sleeper's pid, the probe's temp dirs)."""
    script, pid_file = workspace / "sleeper.py", workspace / "sleeper.pid"
    script.write_text(SLEEPER)
    measure = asyncio.ensure_future(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="warp-ct.measure", arguments=[[sys.executable, str(script), str(pid_file)], str(workspace), 1])
        )
    )
    await wait_for(pid_file.exists, what="the measured command to start")
    temp_dirs = glob.glob(os.path.join(tempfile.gettempdir(), f"warp-ct-probe-{client._server.pid}-*"))  # type: ignore[attr-defined]
    assert temp_dirs, "the probe's temp dir (named after the server's pid) is where the test looks"
    return measure, int(pid_file.read_text()), temp_dirs


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has stopped
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


async def _assert_stopped_and_removed(pid: int, temp_dirs: list[str]) -> None:
    deadline = time.monotonic() + 10
    while _running(pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert not _running(pid), "the measured command outlived the server"
    assert not [d for d in temp_dirs if os.path.exists(d)], "the probe's temp dir outlived the server"


@pytest.mark.skipif(sys.platform != "linux", reason="the probe's process containment is tested on Linux")
async def test_shutdown_during_a_measurement_stops_it_and_answers_null(client: LanguageClient, tmp_path, capfd):
    await start_session(client, tmp_path)
    measure, pid, temp_dirs = await _start_measuring(client, tmp_path)

    assert await asyncio.wait_for(client.shutdown_async(None), 30) is None
    # the measurement had its answer before shutdown's: cancelled, its command and temp dir gone
    assert measure.done()
    result = measure.result()
    assert result["ok"] is False and result["cancelled"] is True
    assert not _running(pid)
    assert not [d for d in temp_dirs if os.path.exists(d)]
    client.exit(None)
    assert await asyncio.wait_for(client._server.wait(), 30) == 0  # type: ignore[attr-defined]
    stderr = await _server_stderr(client, capfd)
    _assert_no_traceback(client, stderr)
    assert "dictionary changed size" not in stderr


@pytest.mark.skipif(sys.platform != "linux", reason="the probe's process containment is tested on Linux")
async def test_exit_without_shutdown_during_a_measurement_still_stops_it(client: LanguageClient, tmp_path, capfd):
    await start_session(client, tmp_path)
    _measure, pid, temp_dirs = await _start_measuring(client, tmp_path)

    client.exit(None)
    assert await asyncio.wait_for(client._server.wait(), 30) == 1  # type: ignore[attr-defined]  # LSP: exit without shutdown
    await _assert_stopped_and_removed(pid, temp_dirs)
    _assert_no_traceback(client, await _server_stderr(client, capfd))
