"""A tiny stand-in for the warp-ct language server, speaking the same contract.

Used only to check the Neovim test harness and the Neovim configs themselves (tests/editors),
independently of the real server: it flags ``module_options=`` in a ``@wp.kernel(...)`` call
without ``module="unique"`` as WCT005, offers the quick fix that inserts ``module="unique", ``,
and answers ``warp-ct.lintWorkspace`` / ``warp-ct.measure``. It also records what the client
sent (initializationOptions, configuration, commands) into $WARP_CT_FAKE_LOG (JSON lines).
"""

from __future__ import annotations

import json
import os
import re
import sys

from lsprotocol import types
from pygls.lsp.server import LanguageServer

server = LanguageServer("warp-ct-fake", "0.0")
PATTERN = re.compile(r"@wp\.kernel\((?![^)]*module=)[^)]*?(module_options\s*=)")


def record(kind: str, value: object) -> None:
    path = os.environ.get("WARP_CT_FAKE_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"kind": kind, "value": value}) + "\n")


def diagnostics_for(source: str) -> list[types.Diagnostic]:
    found = []
    for lineno, line in enumerate(source.splitlines()):
        m = PATTERN.search(line)
        if m:
            start = m.start(1)
            found.append(
                types.Diagnostic(
                    range=types.Range(
                        start=types.Position(line=lineno, character=start),
                        end=types.Position(line=lineno, character=start + len("module_options")),
                    ),
                    message='`module_options=` needs `module="unique"`',
                    severity=types.DiagnosticSeverity.Error,
                    code="WCT005",
                    code_description=types.CodeDescription(href="https://example.invalid/rules/WCT005"),
                    source="warp-ct",
                )
            )
    return found


def publish(ls: LanguageServer, uri: str) -> None:
    doc = ls.workspace.get_text_document(uri)
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, version=doc.version, diagnostics=diagnostics_for(doc.source))
    )


@server.feature(types.INITIALIZE)
def initialize(ls: LanguageServer, params: types.InitializeParams) -> None:
    record("initializationOptions", params.initialization_options)


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
def did_change_configuration(ls: LanguageServer, params: types.DidChangeConfigurationParams) -> None:
    record("didChangeConfiguration", params.settings)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    publish(ls, params.text_document.uri)


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
)
def code_action(ls: LanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    actions = []
    for diag in params.context.diagnostics:
        if diag.code != "WCT005":
            continue
        edit = types.TextEdit(range=types.Range(start=diag.range.start, end=diag.range.start), new_text='module="unique", ')
        actions.append(
            types.CodeAction(
                title='Add `module="unique"`',
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                edit=types.WorkspaceEdit(changes={params.text_document.uri: [edit]}),
            )
        )
    return actions


@server.command("warp-ct.lintWorkspace")
def lint_workspace(ls: LanguageServer, *args: object) -> dict:
    record("lintWorkspace", list(args))
    return {"files": 1, "findings": 1}


@server.command("warp-ct.measure")
def measure(ls: LanguageServer, argv: list, cwd: str | None = None, samples: int | None = None) -> dict:
    record("measure", {"argv": argv, "cwd": cwd, "samples": samples})
    return {"ok": True, "summary": "cold 1.0 s / warm 0.1 s", "coldWallS": 1.0, "warmWallS": 0.1}


if __name__ == "__main__":
    sys.exit(server.start_io())
