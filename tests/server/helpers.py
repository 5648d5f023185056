"""Test helpers for driving the real server subprocess with pytest-lsp."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import time
import uuid
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Callable

from lsprotocol import types
from pygls.protocol import default_converter
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = ["visual-studio-code", "neovim"]  # neovim = the newest snapshot (0.11: offers utf-8)
TIMEOUT = 30.0


def server_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


def make_client() -> LanguageClient:
    """pytest-lsp's client, also recording every publishDiagnostics (with its version)."""
    client = LanguageClient(converter_factory=default_converter)
    features = dict(DEFAULT_CLIENT_FEATURES)

    def publish(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        client.published.append((time.perf_counter(), params))  # type: ignore[attr-defined]

    def register_capability(client: LanguageClient, params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)  # type: ignore[attr-defined]

    def code_lens_refresh(client: LanguageClient, params: None) -> None:
        client.code_lens_refreshes += 1  # type: ignore[attr-defined]

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    features[types.CLIENT_REGISTER_CAPABILITY] = register_capability
    features[types.WORKSPACE_CODE_LENS_REFRESH] = code_lens_refresh
    register_lsp_features(client, features)
    client.published = []  # type: ignore[attr-defined]
    client.registrations = []  # type: ignore[attr-defined]
    client.code_lens_refreshes = 0  # type: ignore[attr-defined]
    return client


async def raw_request(client: LanguageClient, method: str, params: Any, timeout: float = 10) -> Any:
    """Send a request exactly as given: params the typed client would refuse to serialize,
    and without pytest-lsp's checks (which refuse any request before ``initialize``)."""
    msg_id = str(uuid.uuid4())
    future: Future = Future()
    client.protocol._request_futures[msg_id] = future
    client.protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
    return await asyncio.wait_for(asyncio.wrap_future(future), timeout)


def config(command: list[str] | None = None) -> ClientServerConfig:
    return ClientServerConfig(
        server_command=command or [sys.executable, "-m", "warp_ct", "serve"],
        client_factory=make_client,
        server_env=server_env(),
    )


async def wait_for(predicate: Callable[[], Any], timeout: float = TIMEOUT, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.005)


async def wait_publish(client: LanguageClient, uri: str, *, after: int, version: int | None = None,
                       timeout: float = TIMEOUT) -> types.PublishDiagnosticsParams:
    """The first publishDiagnostics for ``uri`` (and ``version``) recorded at index >= ``after``."""

    def find():
        for _t, params in client.published[after:]:  # type: ignore[attr-defined]
            if params.uri == uri and (version is None or params.version == version):
                return params
        return None

    return await wait_for(find, timeout, f"diagnostics for {uri} v{version}")


def mark(client: LanguageClient) -> int:
    return len(client.published)  # type: ignore[attr-defined]


async def open_doc(client: LanguageClient, uri: str, text: str, version: int = 1) -> list[types.Diagnostic]:
    start = mark(client)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text))
    )
    return list((await wait_publish(client, uri, after=start, version=version)).diagnostics)


async def change_doc(client: LanguageClient, uri: str, text: str, version: int, wait: bool = True) -> list[types.Diagnostic] | None:
    start = mark(client)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    if not wait:
        return None
    return list((await wait_publish(client, uri, after=start, version=version)).diagnostics)


def close_doc(client: LanguageClient, uri: str) -> None:
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))


# ---------------------------------------------------------------------- positions and edits
_LINE_RE = re.compile(r"\r\n|\r|\n")


def to_units(line: str, char: int, encoding: str) -> int:
    prefix = line[:char]
    if encoding == "utf-8":
        return len(prefix.encode("utf-8"))
    if encoding == "utf-32":
        return len(prefix)
    return len(prefix.encode("utf-16-le")) // 2


def from_units(line: str, units: int, encoding: str) -> int:
    for i in range(len(line) + 1):
        if to_units(line, i, encoding) >= units:
            return i
    return len(line)


def offset_of(text: str, pos: types.Position, encoding: str) -> int:
    lines = _LINE_RE.split(text)
    starts = [0]
    for m in _LINE_RE.finditer(text):
        starts.append(m.end())
    if pos.line >= len(lines):
        return len(text)
    return starts[pos.line] + from_units(lines[pos.line], pos.character, encoding)


def apply_text_edits(text: str, edits: list[types.TextEdit], encoding: str) -> str:
    spans = sorted(
        ((offset_of(text, e.range.start, encoding), offset_of(text, e.range.end, encoding), e.new_text) for e in edits),
        reverse=True,
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def edits_for(edit: types.WorkspaceEdit, uri: str) -> list[types.TextEdit]:
    out: list[types.TextEdit] = []
    if edit.changes:
        out.extend(edit.changes.get(uri, []))
    for change in edit.document_changes or ():
        if isinstance(change, types.TextDocumentEdit) and change.text_document.uri == uri:
            out.extend(change.edits)  # type: ignore[arg-type]
    return out


def apply_workspace_edit(text: str, edit: types.WorkspaceEdit, uri: str, encoding: str) -> str:
    return apply_text_edits(text, edits_for(edit, uri), encoding)


def encoding_of(client: LanguageClient) -> str:
    enc = client.init_result.capabilities.position_encoding  # type: ignore[attr-defined]
    return str(getattr(enc, "value", enc) or "utf-16")


async def start_session(client: LanguageClient, workspace: Path, debounce_ms: int = 10) -> None:
    """Initialize a session as VS Code does, rooted at ``workspace``, with a short debounce."""
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=from_fs_path(str(workspace)),
            initialization_options={"debounceMs": debounce_ms},
        )
    )
