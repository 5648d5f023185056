"""A client's mistakes get a one-line answer over a real `warp-ct serve` (issue 35): a
document URI with `%00` is refused as InvalidParams (a request) or skipped with one log
line (a notification), a `didChange` for a document that is not open is one log line, and
a measurement's arguments are checked with bounds; none of it puts a traceback in the
editor's log or on stderr. And `file://localhost/...` is the same file as `file:///...`:
a document opened that way keeps the findings that need the rest of its project.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient, client_capabilities

from tests.server.helpers import close_doc, config, mark, open_doc, raw_request, start_session, wait_for, wait_publish
from warp_ct.analyzer.batch import run_lint
from warp_ct.config import Config
from warp_ct.server.settings import MAX_SAMPLES

pytestmark = pytest.mark.asyncio(loop_scope="module")

INVALID_PARAMS = -32602
SOURCE = """import warp as wp

@wp.kernel(module_options={"enable_backward": False})
def k(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0
"""
CLIAPP = Path(__file__).resolve().parents[1] / "analyzer" / "workspace" / "cliapp"


@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: LanguageClient, tmp_path_factory):
    workspace = tmp_path_factory.mktemp("ws-mistakes")
    await start_session(lsp_client, workspace)
    lsp_client.workspace = workspace  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


class ServerStderr:
    """What the server writes to stderr from now on (pytest-lsp forwards it to this process's
    stderr, a line at a time, as the loop gets to it)."""

    def __init__(self, capfd) -> None:
        self.capfd = capfd
        capfd.readouterr()  # what came before the test is not the test's
        self.text = ""

    async def wait_for_line(self, part: str) -> str:
        def found() -> str | None:
            self.text += self.capfd.readouterr().err
            return next((line for line in self.text.splitlines() if part in line), None)

        return await wait_for(found, what=f"a stderr line with {part!r}")


def _assert_no_traceback(client: LanguageClient, stderr: ServerStderr) -> None:
    assert "Traceback" not in stderr.text, stderr.text
    assert not [m.message for m in client.log_messages if "Traceback" in m.message]


def _nul_uri(client: LanguageClient) -> str:
    return from_fs_path(str(client.workspace / "a.py")).replace("/a.py", "/a%00b.py")  # type: ignore[attr-defined]


async def test_a_nul_in_a_document_uri_is_refused_in_one_line(client: LanguageClient, capfd):
    stderr = ServerStderr(capfd)
    bad = _nul_uri(client)
    start = mark(client)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri=bad, language_id="python", version=1, text=SOURCE))
    )
    line = await stderr.wait_for_line("ignored notification 'textDocument/didOpen'")
    assert line.endswith(f"invalid params for 'textDocument/didOpen': {bad!r} holds a NUL character (%00), which no file path can")
    with pytest.raises(JsonRpcException) as refused:
        await client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=bad), position=types.Position(line=0, character=0))
        )
    assert refused.value.code == INVALID_PARAMS
    assert refused.value.message == f"invalid params for 'textDocument/hover': {bad!r} holds a NUL character (%00), which no file path can"
    # the server goes on: a good document still gets its diagnostics, the bad one none
    good = from_fs_path(str(client.workspace / "good.py"))  # type: ignore[attr-defined]
    assert [d.code for d in await open_doc(client, good, SOURCE) if d.code == "WCT005"] == ["WCT005"]
    close_doc(client, good)
    assert not [p for _t, p in client.published[start:] if "%00" in p.uri]  # type: ignore[attr-defined]
    _assert_no_traceback(client, stderr)


async def test_a_change_to_a_document_that_is_not_open_is_one_log_line(client: LanguageClient, capfd):
    stderr = ServerStderr(capfd)
    uri = from_fs_path(str(client.workspace / "never_opened.py"))  # type: ignore[attr-defined]
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=SOURCE)],
        )
    )
    line = await stderr.wait_for_line("ignored 'textDocument/didChange'")
    assert line.endswith(f"{uri!r} is not open")
    assert await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=0))
    ) is None
    _assert_no_traceback(client, stderr)


async def _measure(client: LanguageClient, arguments) -> dict:
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(command="warp-ct.measure", arguments=arguments))


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ([["python", "x.py"], None, 10**9], f"samples must be a whole number from 1 to {MAX_SAMPLES}, got 1000000000"),
        ([["python", "x.py"], None, 0], f"samples must be a whole number from 1 to {MAX_SAMPLES}, got 0"),
        ([["python", "x.py"], None, 2.5], f"samples must be a whole number from 1 to {MAX_SAMPLES}, got 2.5"),
        ([["python", "x.py"], None, "3"], f"samples must be a whole number from 1 to {MAX_SAMPLES}, got '3'"),
        ([["python", "x.py"], None, 1, -1], "timeout must be a number of seconds above 0 and at most 86400 (a day), or null, got -1"),
        ([["python", "x.py"], None, 1, 10**9], "timeout must be a number of seconds above 0 and at most 86400 (a day), or null, got 1000000000"),
        ([["python", "x.py"], None, 1, True], "timeout must be a number of seconds above 0 and at most 86400 (a day), or null, got True"),
        ([["python\x00", "x.py"]], "argv holds a NUL character, which no command line can: ['python\\x00', 'x.py']"),
        ([["python", "x.py"], "/tmp/\x00"], "cwd holds a NUL character, which no path can: '/tmp/\\x00'"),
        ([{"argv": ["python", "x.py"], "sample": 5}], "unknown argument 'sample'; the arguments are argv, cwd, samples, timeout"),
        ([["python"], None, 1, None, 5], "expected at most 4 arguments (argv, cwd, samples, timeout), got 5"),
    ],
)
async def test_measure_arguments_out_of_bounds_are_invalid_params(client: LanguageClient, capfd, arguments, message):
    stderr = ServerStderr(capfd)
    with pytest.raises(JsonRpcException) as refused:
        await _measure(client, arguments)
    assert refused.value.code == INVALID_PARAMS and refused.value.message == f"warp-ct.measure: {message}"
    await stderr.wait_for_line(f"answered with error -32602: warp-ct.measure: {message[:30]}")
    _assert_no_traceback(client, stderr)


async def test_measure_arguments_as_an_object_instead_of_an_array_are_invalid_params(client: LanguageClient):
    with pytest.raises(JsonRpcException) as refused:  # (before: a command named "argv" was measured)
        await raw_request(client, types.WORKSPACE_EXECUTE_COMMAND, {"command": "warp-ct.measure", "arguments": {"argv": ["python"]}})
    assert refused.value.code == INVALID_PARAMS and "'arguments' must be an array" in refused.value.message


async def test_a_measure_timeout_stops_the_run(client: LanguageClient):
    workspace: Path = client.workspace  # type: ignore[attr-defined]
    script = workspace / "slow.py"
    script.write_text("import time\ntime.sleep(60)\n")
    arguments = {"argv": [sys.executable, str(script)], "cwd": str(workspace), "samples": 1, "timeout": 0.5}
    result = await asyncio.wait_for(_measure(client, [arguments]), 30)
    assert result["ok"] is False and "0.5 s timeout" in result["summary"], result


# ---------------------------------------------------------------------- file://localhost
def _localhost(path: Path) -> str:
    return from_fs_path(str(path)).replace("file:///", "file://localhost/", 1)


@pytest_lsp.fixture(config=config(), scope="module")
async def localhost_client(lsp_client: LanguageClient, tmp_path_factory):
    workspace = tmp_path_factory.mktemp("ws-localhost") / "cliapp"
    shutil.copytree(CLIAPP, workspace, ignore=shutil.ignore_patterns("__pycache__"))
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=_localhost(workspace),
            workspace_folders=[types.WorkspaceFolder(uri=_localhost(workspace), name="cliapp")],
            initialization_options={"debounceMs": 20},
        )
    )
    lsp_client.workspace = workspace  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def test_a_localhost_uri_keeps_the_findings_of_its_project(localhost_client: LanguageClient):
    client = localhost_client
    path = client.workspace / "cliapp" / "__main__.py"  # type: ignore[attr-defined]
    text = path.read_text(encoding="utf-8")
    [result] = run_lint([str(path)], Config(select=("ALL",), root=path.parent))
    expected = sorted((f.rule, f.range.start.line) for f in result.findings)
    # WCT001 here needs the project's other modules (what `fast` calls builds kernels)
    assert ("WCT001", 9) in expected
    for uri in (_localhost(path), from_fs_path(str(path))):
        start = mark(client)
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
        )
        published = await wait_publish(client, uri, after=start, version=1)
        assert sorted((d.code, d.range.start.line) for d in published.diagnostics) == expected, uri
        close_doc(client, uri)
