"""End to end: a real `warp-ct serve` subprocess over stdio, driven with the client
capabilities of VS Code (UTF-16 positions) and of Neovim 0.11 (offers UTF-8)."""

from __future__ import annotations

import ast
import asyncio
import re
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient, client_capabilities

from tests.server.helpers import (
    CLIENTS,
    apply_workspace_edit,
    change_doc,
    close_doc,
    config,
    encoding_of,
    mark,
    open_doc,
    raw_request,
    to_units,
    wait_for,
    wait_publish,
)
from warp_ct.analyzer.engine import Linter
from warp_ct.config import Config

pytestmark = pytest.mark.asyncio(loop_scope="module")

DEBOUNCE_MS = 20

WCT005_LINE = '@wp.kernel(enable_backward=("é😀" == "x"), module_options={"enable_backward": False})'
UNICODE_SOURCE = f'''import warp as wp

# ünïcödé 🚀 comment
{WCT005_LINE}
def scale(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] * s
'''

TWO_FINDINGS = '''import warp as wp

@wp.kernel(module_options={"enable_backward": False})
def a(x: wp.array(dtype=float)):
    x[wp.tid()] = 1.0

@wp.kernel(module_options={"enable_backward": False})  # noqa: E501
def b(x: wp.array(dtype=float)):
    x[wp.tid()] = 2.0
'''


@pytest_lsp.fixture(config=config(), params=CLIENTS, scope="module")
async def client(lsp_client: LanguageClient, request, tmp_path_factory):
    workspace = tmp_path_factory.mktemp(f"ws-{request.param}")
    (workspace / "pkg").mkdir()
    (workspace / "pkg" / "__init__.py").write_text("")
    params = types.InitializeParams(
        capabilities=client_capabilities(request.param),
        root_uri=from_fs_path(str(workspace)),
        workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(workspace)), name="ws")],
        initialization_options={"debounceMs": DEBOUNCE_MS, "someClientKey": "ignored"},
    )
    lsp_client.init_result = await lsp_client.initialize_session(params)  # type: ignore[attr-defined]
    lsp_client.workspace = workspace  # type: ignore[attr-defined]
    lsp_client.client_name = request.param  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


def _uri(client: LanguageClient, name: str) -> str:
    path = client.workspace / name  # type: ignore[attr-defined]
    path.parent.mkdir(parents=True, exist_ok=True)
    return from_fs_path(str(path))


def _wct005(diagnostics) -> list[types.Diagnostic]:
    return [d for d in diagnostics if d.code == "WCT005"]


def _clean_for(text: str, code: str) -> bool:
    ast.parse(text)
    result = Linter(Config()).lint_text("/tmp/check_fixed.py", text)
    return not [f for f in result.findings if f.rule == code]


async def _actions(client, uri, rng, diagnostics=(), only=None):
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=rng,
            context=types.CodeActionContext(diagnostics=list(diagnostics), only=only),
        )
    )


# ---------------------------------------------------------------------- initialize
async def test_capabilities_and_encoding(client: LanguageClient):
    caps = client.init_result.capabilities  # type: ignore[attr-defined]
    assert client.init_result.server_info.name == "warp-ct"  # type: ignore[attr-defined]
    expected = "utf-8" if client.client_name == "neovim" else "utf-16"  # type: ignore[attr-defined]
    assert encoding_of(client) == expected
    assert set(caps.execute_command_provider.commands) >= {"warp-ct.measure", "warp-ct.lintWorkspace"}
    kinds = caps.code_action_provider.code_action_kinds
    assert "quickfix" in kinds and "source.fixAll.warp-ct" in kinds
    assert caps.hover_provider and caps.code_lens_provider is not None


# ---------------------------------------------------------------------- diagnostics
async def test_diagnostics_exact_range_after_non_ascii(client: LanguageClient):
    uri = _uri(client, "unicode_kernel.py")
    diagnostics = _wct005(await open_doc(client, uri, UNICODE_SOURCE))
    assert len(diagnostics) == 1
    d = diagnostics[0]
    encoding = encoding_of(client)
    start_char = WCT005_LINE.index("module_options")
    end_char = WCT005_LINE.index("})") + 1
    assert d.range == types.Range(
        start=types.Position(line=3, character=to_units(WCT005_LINE, start_char, encoding)),
        end=types.Position(line=3, character=to_units(WCT005_LINE, end_char, encoding)),
    )
    # the emoji and accents really shift the column in UTF-16 / UTF-8
    assert d.range.start.character != start_char
    assert d.source == "warp-ct"
    assert d.severity == types.DiagnosticSeverity.Error
    assert d.code_description is not None and d.code_description.href.endswith("WCT005.md")
    assert d.data["name"] == "module-options-without-unique"
    assert d.data["fixes"] and d.data["fixes"][0]["edits"]
    close_doc(client, uri)


async def test_close_clears_diagnostics(client: LanguageClient):
    uri = _uri(client, "closing.py")
    assert _wct005(await open_doc(client, uri, TWO_FINDINGS))
    start = mark(client)
    close_doc(client, uri)
    published = await wait_publish(client, uri, after=start)
    assert list(published.diagnostics) == []


async def test_change_relints_with_version(client: LanguageClient):
    uri = _uri(client, "changing.py")
    assert len(_wct005(await open_doc(client, uri, TWO_FINDINGS))) == 2
    fixed = TWO_FINDINGS.replace("@wp.kernel(module_options", '@wp.kernel(module="unique", module_options', 1)
    assert len(_wct005(await change_doc(client, uri, fixed, version=2))) == 1
    close_doc(client, uri)


async def test_burst_of_edits_is_coalesced(client: LanguageClient):
    uri = _uri(client, "burst.py")
    await open_doc(client, uri, TWO_FINDINGS)
    start = mark(client)
    edits = 1000
    for version in range(2, edits + 2):
        await change_doc(client, uri, TWO_FINDINGS + f"\n# edit {version}\n", version=version, wait=False)
    last = await wait_publish(client, uri, after=start, version=edits + 1)
    assert len(_wct005(last.diagnostics)) == 2
    published = [p for _t, p in client.published[start:] if p.uri == uri]  # type: ignore[attr-defined]
    # the protocol loop reads edits faster than the debounce: a handful of analyses, not 1,000
    assert len(published) <= 25, len(published)
    versions = [p.version for p in published]
    assert versions == sorted(versions)  # never an older version after a newer one
    close_doc(client, uri)


# ---------------------------------------------------------------------- code actions
async def test_quick_fix_makes_code_clean(client: LanguageClient):
    uri = _uri(client, "quickfix.py")
    diagnostics = _wct005(await open_doc(client, uri, UNICODE_SOURCE))
    actions = await _actions(client, uri, diagnostics[0].range, diagnostics)
    fixes = [a for a in actions if a.kind == "quickfix" and not a.title.startswith("Disable")]
    assert fixes, [a.title for a in actions]
    assert fixes[0].is_preferred
    for action in fixes:
        fixed = apply_workspace_edit(UNICODE_SOURCE, action.edit, uri, encoding_of(client))
        assert 'module="unique", module_options' in fixed
        assert _clean_for(fixed, "WCT005")
    # and the server agrees after the edit
    fixed = apply_workspace_edit(UNICODE_SOURCE, fixes[0].edit, uri, encoding_of(client))
    assert not _wct005(await change_doc(client, uri, fixed, version=2))
    close_doc(client, uri)


async def test_suppress_action_adds_and_merges_noqa(client: LanguageClient):
    uri = _uri(client, "suppress.py")
    diagnostics = _wct005(await open_doc(client, uri, TWO_FINDINGS))
    assert len(diagnostics) == 2
    encoding = encoding_of(client)
    text = TWO_FINDINGS
    version = 1
    for diagnostic in sorted(diagnostics, key=lambda d: d.range.start.line, reverse=True):
        actions = await _actions(client, uri, diagnostic.range, [diagnostic])
        suppress = [a for a in actions if a.title == "Disable WCT005 for this line"]
        assert len(suppress) == 1
        text = apply_workspace_edit(text, suppress[0].edit, uri, encoding)
    lines = text.splitlines()
    assert lines[2].endswith("  # noqa: WCT005")
    assert lines[6].endswith("# noqa: E501, WCT005")  # merged into the existing comment
    version += 1
    assert not _wct005(await change_doc(client, uri, text, version=version))
    close_doc(client, uri)


async def test_fix_all(client: LanguageClient):
    uri = _uri(client, "fixall.py")
    assert len(_wct005(await open_doc(client, uri, TWO_FINDINGS))) == 2
    whole = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
    actions = await _actions(client, uri, whole, only=["source.fixAll"])
    assert [a.kind for a in actions] == ["source.fixAll.warp-ct"]
    fixed = apply_workspace_edit(TWO_FINDINGS, actions[0].edit, uri, encoding_of(client))
    assert fixed.count('module="unique"') == 2
    assert _clean_for(fixed, "WCT005")
    assert not _wct005(await change_doc(client, uri, fixed, version=2))
    # nothing left to fix -> no action
    assert not await _actions(client, uri, whole, only=["source.fixAll.warp-ct"])
    close_doc(client, uri)


async def test_every_rule_example_quick_fix(client: LanguageClient):
    """Every rule's documented bad example: each offered quick fix yields code that is clean
    for that rule and still parses (rules added later are covered automatically)."""
    from warp_ct.analyzer.rules import all_rules

    encoding = encoding_of(client)
    checked = 0
    for rule in all_rules():
        if rule.fix_applicability is None:
            continue
        bad, _good = rule.examples()
        for n, example in enumerate(bad):
            if len(example.files) != 1:
                continue  # multi-file examples need a project layout: covered by the analyzer tests
            (text,) = example.files.values()
            uri = _uri(client, f"examples/{rule.code.lower()}_{n}.py")
            diagnostics = [d for d in await open_doc(client, uri, text) if d.code == rule.code]
            for diagnostic in diagnostics:
                actions = await _actions(client, uri, diagnostic.range, [diagnostic])
                for action in actions:
                    if action.kind != "quickfix" or action.title.startswith("Disable"):
                        continue
                    fixed = apply_workspace_edit(text, action.edit, uri, encoding)
                    ast.parse(fixed)
                    result = Linter(Config()).lint_text(f"/tmp/{rule.code}_fixed.py", fixed)
                    remaining = [f for f in result.findings if f.rule == rule.code]
                    # the fixed finding is gone (an example may hold several findings of the rule)
                    assert len(remaining) < len(diagnostics), (rule.code, action.title, fixed)
                    checked += 1
            close_doc(client, uri)
    assert checked >= 1


# ---------------------------------------------------------------------- hover
async def test_hover_on_diagnostic_and_noqa(client: LanguageClient):
    uri = _uri(client, "hover.py")
    text = TWO_FINDINGS.replace("# noqa: E501", "# noqa: E501, WCT005")
    diagnostics = _wct005(await open_doc(client, uri, text))
    assert len(diagnostics) == 1
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=diagnostics[0].range.start)
    )
    assert hover is not None and "WCT005" in hover.contents.value and "## What it does" in hover.contents.value
    line = text.splitlines()[6]
    column = to_units(line, line.index("WCT005") + 2, encoding_of(client))
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=6, character=column))
    )
    assert hover is not None and hover.contents.value.startswith("# WCT005 module-options-without-unique")
    assert hover.range.start.line == 6
    nothing = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=0))
    )
    assert nothing is None
    close_doc(client, uri)


# ---------------------------------------------------------------------- settings
async def test_configuration_change_relints(client: LanguageClient):
    uri = _uri(client, "config_change.py")
    assert _wct005(await open_doc(client, uri, TWO_FINDINGS))
    start = mark(client)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"warpCt": {"ignore": ["WCT005"], "debounceMs": DEBOUNCE_MS}}))
    published = await wait_publish(client, uri, after=start)
    assert not _wct005(published.diagnostics)

    # a bad value is refused with a warning, the previous settings stay
    start_messages = len(client.messages)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"warpCt": {"select": ["NOPE1"]}}))
    await wait_for(lambda: len(client.messages) > start_messages, what="a showMessage warning")
    assert client.messages[-1].type == types.MessageType.Warning and "NOPE1" in client.messages[-1].message
    assert not _wct005(await change_doc(client, uri, TWO_FINDINGS + "\n", version=2))

    start = mark(client)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"ignore": [], "severity": {"WCT005": "hint"}, "debounceMs": DEBOUNCE_MS}))
    published = await wait_publish(client, uri, after=start)
    found = _wct005(published.diagnostics)
    assert found and all(d.severity == types.DiagnosticSeverity.Hint for d in found)

    start = mark(client)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"severity": {}, "debounceMs": DEBOUNCE_MS}))
    published = await wait_publish(client, uri, after=start)
    assert all(d.severity == types.DiagnosticSeverity.Error for d in _wct005(published.diagnostics))
    close_doc(client, uri)


async def test_configuration_pulled_when_settings_are_null(client: LanguageClient):
    uri = _uri(client, "config_pull.py")
    assert _wct005(await open_doc(client, uri, TWO_FINDINGS))
    client.set_configuration({"ignore": ["WCT005"], "debounceMs": DEBOUNCE_MS}, section="warpCt")
    start = mark(client)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    published = await wait_publish(client, uri, after=start)
    assert not _wct005(published.diagnostics)
    client.set_configuration({"ignore": [], "debounceMs": DEBOUNCE_MS}, section="warpCt")
    start = mark(client)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    assert _wct005((await wait_publish(client, uri, after=start)).diagnostics)
    close_doc(client, uri)


async def test_pyproject_change_relints(client: LanguageClient):
    uri = _uri(client, "pyproject_user.py")
    assert _wct005(await open_doc(client, uri, TWO_FINDINGS))
    pyproject = client.workspace / "pyproject.toml"  # type: ignore[attr-defined]
    start = mark(client)
    pyproject.write_text('[tool.warp-ct]\nignore = ["WCT005"]\n')
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=from_fs_path(str(pyproject)), type=types.FileChangeType.Created)])
    )
    published = await wait_for(
        lambda: next((p for _t, p in client.published[start:] if p.uri == uri and not _wct005(p.diagnostics)), None),  # type: ignore[attr-defined]
        what="re-lint after pyproject change",
    )
    assert published is not None
    # removed again, without any notification: the server's poll notices it
    start = mark(client)
    pyproject.unlink()
    await wait_for(
        lambda: next((p for _t, p in client.published[start:] if p.uri == uri and _wct005(p.diagnostics)), None),  # type: ignore[attr-defined]
        timeout=15,
        what="re-lint after pyproject removal",
    )
    close_doc(client, uri)


async def test_broken_pyproject_is_shown_and_the_folder_runs_on_the_defaults(client: LanguageClient):
    uri = _uri(client, "broken_config_user.py")
    assert _wct005(await open_doc(client, uri, TWO_FINDINGS))
    pyproject = client.workspace / "pyproject.toml"  # type: ignore[attr-defined]
    changed = types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=from_fs_path(str(pyproject)), type=types.FileChangeType.Changed)])
    problem = "key 'ignore' must be a list of strings"
    shown = lambda: [m for m in client.messages if problem in m.message]  # noqa: E731
    logged = lambda: [m for m in client.log_messages if problem in m.message]  # noqa: E731

    start = mark(client)
    pyproject.write_text('[tool.warp-ct]\nignore = "WCT005"\n')  # a string: it used to ignore WCT005 quietly
    client.workspace_did_change_watched_files(changed)
    (message,) = await wait_for(shown, what="the configuration error shown")
    assert message.type == types.MessageType.Warning and str(pyproject) in message.message
    assert "Using the default configuration until it is fixed." in message.message
    published = await wait_for(
        lambda: next((p for _t, p in client.published[start:] if p.uri == uri), None),  # type: ignore[attr-defined]
        what="the re-lint after the pyproject change",
    )
    assert _wct005(published.diagnostics)  # the defaults: WCT005 is reported

    # while it stays broken, a rebuild logs the problem again but does not pop it up again
    logs = len(logged())
    client.workspace_did_change_watched_files(changed)
    await wait_for(lambda: len(logged()) > logs, what="the problem logged again")
    assert len(shown()) == 1

    pyproject.unlink()
    client.workspace_did_change_watched_files(changed)
    close_doc(client, uri)


async def test_misspelt_table_is_shown_as_lint_warns(client: LanguageClient):
    uri = _uri(client, "misspelt_config_user.py")
    assert _wct005(await open_doc(client, uri, TWO_FINDINGS))
    pyproject = client.workspace / "pyproject.toml"  # type: ignore[attr-defined]
    changed = types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=from_fs_path(str(pyproject)), type=types.FileChangeType.Changed)])
    pyproject.write_text('[tool.warp_ct]\nignore = ["WCT005"]\n')
    client.workspace_did_change_watched_files(changed)
    shown = lambda: [m for m in client.messages if "[tool.warp_ct] is ignored" in m.message]  # noqa: E731
    (message,) = await wait_for(shown, what="the misspelt table shown")
    assert message.type == types.MessageType.Warning and "did you mean [tool.warp-ct]?" in message.message
    pyproject.unlink()
    client.workspace_did_change_watched_files(changed)
    close_doc(client, uri)


async def test_lint_on_change_off(client: LanguageClient):
    uri = _uri(client, "on_save.py")
    assert _wct005(await open_doc(client, uri, TWO_FINDINGS))
    start = mark(client)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"lintOnChange": False, "debounceMs": DEBOUNCE_MS}))
    await wait_publish(client, uri, after=start, version=1)  # the re-lint for the new settings
    start = mark(client)
    fixed = TWO_FINDINGS.replace("module_options", 'module="unique", module_options')
    await change_doc(client, uri, fixed, version=2, wait=False)
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    published = await wait_publish(client, uri, after=start, version=2)
    assert not _wct005(published.diagnostics)
    # Only the save linted version 2. (A client that also answers workspace/configuration can
    # get a second, late re-lint of version 1 for the settings change: not the edit's.)
    assert len([p for _t, p in client.published[start:] if p.uri == uri and p.version == 2]) == 1  # type: ignore[attr-defined]
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"lintOnChange": True, "debounceMs": DEBOUNCE_MS}))
    close_doc(client, uri)


# ---------------------------------------------------------------------- commands and robustness
async def test_lint_workspace_command(client: LanguageClient):
    workspace: Path = client.workspace  # type: ignore[attr-defined]
    closed = workspace / "pkg" / "closed_module.py"
    closed.write_text(TWO_FINDINGS)
    (workspace / "build").mkdir(exist_ok=True)
    (workspace / "build" / "excluded.py").write_text(TWO_FINDINGS)
    start = mark(client)
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="warp-ct.lintWorkspace"))
    assert result["files"] >= 2 and result["findings"] >= 2
    published = await wait_publish(client, from_fs_path(str(closed)), after=start)
    assert len(_wct005(published.diagnostics)) == 2
    assert not [p for _t, p in client.published[start:] if p.uri.endswith("excluded.py")]  # type: ignore[attr-defined]
    closed.unlink()


async def test_malformed_requests_get_errors_and_server_survives(client: LanguageClient):
    for method, params in [
        ("textDocument/hover", {"textDocument": 5}),
        ("textDocument/codeAction", {"textDocument": {"uri": "file:///x.py"}, "range": "nope"}),
    ]:
        with pytest.raises(JsonRpcException):
            await raw_request(client, method, params)
    with pytest.raises(JsonRpcException):
        await client.workspace_execute_command_async(types.ExecuteCommandParams(command="warp-ct.measure", arguments=[42]))
    with pytest.raises(JsonRpcException):
        await client.workspace_execute_command_async(types.ExecuteCommandParams(command="warp-ct.noSuchCommand"))
    # no command configured: a clean ok=false answer
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="warp-ct.measure", arguments=[None, None, None]))
    assert result["ok"] is False and "probeCommand" in result["summary"]
    # still alive and analysing
    uri = _uri(client, "alive.py")
    assert _wct005(await open_doc(client, uri, TWO_FINDINGS))
    close_doc(client, uri)


async def test_unknown_document_requests_are_harmless(client: LanguageClient):
    uri = _uri(client, "never_opened.py")
    assert await _actions(client, uri, types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))) is None
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    assert list(lenses) == []


# ---------------------------------------------------------------------- measure
MEASURED_PROGRAM = '''import warp as wp

wp.config.quiet = True


@wp.kernel
def scale(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] * s


def main():
    a = wp.zeros(16, dtype=float, device="cpu")
    wp.launch(scale, dim=16, inputs=[a, 2.0], device="cpu")
    wp.set_module_options({"enable_backward": False})
    wp.launch(scale, dim=16, inputs=[a, 3.0], device="cpu")
    wp.synchronize()


if __name__ == "__main__":
    main()
'''

SLEEPER = "import time\nprint('started', flush=True)\ntime.sleep(120)\n"


def _progress_kinds(reports) -> list[str]:
    return [r.kind for r in reports]


async def test_measure_is_cancellable_and_never_blocks_diagnostics(client: LanguageClient):
    workspace: Path = client.workspace  # type: ignore[attr-defined]
    script = workspace / "sleeper.py"
    script.write_text(SLEEPER)
    before = set(client.progress_reports)
    task = asyncio.ensure_future(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="warp-ct.measure", arguments=[[sys.executable, str(script)], str(workspace), 1])
        )
    )
    token = await wait_for(
        lambda: next((t for t, r in client.progress_reports.items() if t not in before and r), None), what="progress begin"
    )
    assert client.progress_reports[token][0].kind == "begin" and client.progress_reports[token][0].cancellable
    # a second measure is refused while one runs
    busy = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="warp-ct.measure", arguments=[[sys.executable, str(script)], None, 1])
    )
    assert busy["ok"] is False and "already running" in busy["summary"]
    # diagnostics keep flowing while the probe runs
    uri = _uri(client, "during_measure.py")
    assert _wct005(await open_doc(client, uri, TWO_FINDINGS))
    close_doc(client, uri)
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    result = await asyncio.wait_for(task, 30)
    assert result["ok"] is False and result["cancelled"] is True
    await wait_for(lambda: client.progress_reports[token][-1].kind == "end", what="progress end")
    script.unlink()


@pytest.mark.warp
async def test_measure_real_warp_program(client: LanguageClient):
    workspace: Path = client.workspace  # type: ignore[attr-defined]
    program = workspace / "measured_prog.py"
    program.write_text(MEASURED_PROGRAM)
    uri = from_fs_path(str(program))
    diagnostics = await open_doc(client, uri, MEASURED_PROGRAM)
    static_codes = {d.code for d in diagnostics}
    before = set(client.progress_reports)
    start = mark(client)
    shown = len(client.shown_documents)
    result = await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="warp-ct.measure", arguments=[[sys.executable, str(program)], str(workspace), 1])
        ),
        300,
    )
    assert result["ok"] is True, result
    assert result["coldWallS"] > 0 and result["warmWallS"] > 0
    assert Path(result["jsonPath"]).is_file() and Path(result["htmlPath"]).is_file()
    assert any("rebuilt" in d for d in result["diagnoses"]), result["diagnoses"]
    # $/progress: begin, at least one report, end
    (token,) = [t for t in client.progress_reports if t not in before]
    kinds = _progress_kinds(client.progress_reports[token])
    assert kinds[0] == "begin" and "report" in kinds and kinds[-1] == "end"
    # measured evidence where the code is: a code lens above the kernel (no Information
    # diagnostic on it saying "rebuilt": the WCT006 below says it, once) ...
    kernel_line = MEASURED_PROGRAM.splitlines().index("@wp.kernel")
    published = await wait_publish(client, uri, after=start)
    assert not [d for d in published.diagnostics if d.code == "WCT-measured" and "rebuilt" in d.message], published.diagnostics
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    assert [lens.range.start.line for lens in lenses] == [kernel_line]
    late_line = MEASURED_PROGRAM.splitlines().index('    wp.set_module_options({"enable_backward": False})')
    assert re.fullmatch(rf"built 2× · \d+\.\d\d s cold · options changed at line {late_line + 1}", lenses[0].command.title), (
        lenses[0].command.title
    )
    # ... one problem, one diagnostic: the measured WCT006 at the late set_module_options and the
    # static WCT006 there are one problem, shown once: the static diagnostic carries the measured
    # figures (message and data), and no measured diagnostic repeats it ...
    assert "WCT006" in static_codes
    (wct006,) = [d for d in published.diagnostics if d.code == "WCT006"]
    assert wct006.source == "warp-ct" and wct006.range.start.line == late_line and wct006.range.start.character == 4
    assert re.search(r"\(confirmed: measured at measured_prog\.py:15: module `measured_prog` built 2× with 2 hashes, "
                     r"\d+\.\d\d s rebuilding\)$", wct006.message), wct006.message
    assert wct006.data["confirmed"] is True
    (figures,) = wct006.data["evidence"]
    assert figures["module"] == "__main__" and figures["builds"] == 2 and figures["distinct_hashes"] == 2 and figures["milliseconds"] > 0
    assert wct006.code_description is not None and wct006.code_description.href.endswith("WCT006.md")
    # ... while a measured finding the static side missed is a diagnostic of its own, naming the
    # script's module by its file's module name (the probe saw `__main__`) ...
    (backward,) = [d for d in published.diagnostics if d.source == "warp-ct (measured)"]
    assert backward.code == "WCT010" and backward.range.start.line == kernel_line and backward.data["origin"] == "measured"
    assert backward.severity == types.DiagnosticSeverity.Warning
    assert backward.message.startswith("`measured_prog` (run as `__main__`) was built with backward (adjoint) code"), backward.message
    assert not [d for d in published.diagnostics if d.code == "WCT010" and d.source == "warp-ct"]
    # ... and a summary the client opened
    assert len(client.shown_documents) > shown
    summary_uri = client.shown_documents[-1].uri
    assert summary_uri.endswith("summary.md") and Path(result["summaryPath"]).is_file()
    # The summary's report prints each problem once: the pair as the static finding with both
    # sources and the figures, the measured finding the static side missed on its own.
    summary = Path(result["summaryPath"]).read_text(encoding="utf-8")
    found = summary[summary.index("Measured findings (where the rebuilds came from)"):].split("\n\n")[0].splitlines()[1:]
    found = [line for line in found if line.startswith("  ")]
    assert len(found) == 2, summary
    assert found[0].startswith(f"  measured_prog.py:{kernel_line + 1}:1: WCT010 [unused-backward] `measured_prog` (run as `__main__`)"), found
    assert found[1].startswith(f"  measured_prog.py:{late_line + 1}:5: WCT006 [static + measured] The options of this file's"), found
    assert "(confirmed: measured at measured_prog.py:15: module `measured_prog` built 2× with 2 hashes, " in found[1], found
    if client.client_name == "visual-studio-code":  # type: ignore[attr-defined]
        assert client.code_lens_refreshes >= 1  # type: ignore[attr-defined]
    # The static re-lint of the next keystrokes keeps the pair joined where the lines moved to:
    # still one WCT006, carrying the figures, and the measured WCT010 follows its line.
    edited = "# edited\n# after\n# the measurement\n" + MEASURED_PROGRAM
    diagnostics = await change_doc(client, uri, edited, version=2)
    (kept,) = [d for d in diagnostics if d.code == "WCT006"]
    assert kept.source == "warp-ct" and kept.range.start.line == late_line + 3 and "confirmed: measured at" in kept.message
    (moved,) = [d for d in diagnostics if d.source == "warp-ct (measured)"]
    assert moved.code == "WCT010" and moved.range.start.line == kernel_line + 3
    gone = edited.replace('    wp.set_module_options({"enable_backward": False})\n', "")
    diagnostics = await change_doc(client, uri, gone, version=3)
    assert not [d for d in diagnostics if d.code == "WCT006"]
    close_doc(client, uri)


CROSS_LIB = '''import warp as wp


def make_scale(s: float):
    @wp.kernel
    def scale(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = a[i] * s

    return scale
'''
CROSS_APP = '''import warp as wp

from lib import make_scale

wp.config.quiet = True

a = wp.ones(8, dtype=float, device="cpu")
for step in range(2):
    k = make_scale(float(step + 2))
    wp.launch(k, dim=8, inputs=[a], device="cpu")
'''


@pytest.mark.warp
async def test_a_pair_across_two_files_is_one_diagnostic(client: LanguageClient):
    """A kernel made per call: the static WCT003 at the factory's kernel (lib.py) and the measured
    WCT007 at the call that rebuilt the module (app.py) are one problem: the static diagnostic in
    lib.py carries the figures and names the call; app.py shows no measured WCT007 of its own."""
    workspace: Path = client.workspace  # type: ignore[attr-defined]
    folder = workspace / "crossfile"
    folder.mkdir()
    (folder / "lib.py").write_text(CROSS_LIB)
    (folder / "app.py").write_text(CROSS_APP)
    app_uri, lib_uri = from_fs_path(str(folder / "app.py")), from_fs_path(str(folder / "lib.py"))
    await open_doc(client, app_uri, CROSS_APP)
    start = mark(client)
    result = await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="warp-ct.measure", arguments=[[sys.executable, "app.py"], str(folder), 1])
        ),
        300,
    )
    assert result["ok"] is True, result
    call_line = CROSS_APP.splitlines().index("    k = make_scale(float(step + 2))")

    def closed_lib():
        published = [p for _t, p in client.published[start:] if p.uri == lib_uri]  # type: ignore[attr-defined]
        return published[-1] if published else None

    lib = await wait_for(closed_lib, what="lib.py's diagnostics after the measurement")
    (per_call,) = [d for d in lib.diagnostics if d.code == "WCT003"]
    assert per_call.source == "warp-ct"
    assert re.search(r"\(confirmed: measured at app\.py:9: module `lib` built 2× with 2 hashes, \d+\.\d\d s rebuilding\)$",
                     per_call.message), per_call.message
    assert not [d for d in lib.diagnostics if d.source == "warp-ct (measured)" and d.code in ("WCT003", "WCT007")]
    # app.py (open): its re-lint after the measurement shows no measured WCT007 at the call
    app = await wait_publish(client, app_uri, after=start)
    await asyncio.sleep(0.5)  # a later publication for app.py, if any, would be the newest
    newest = [p for _t, p in client.published[start:] if p.uri == app_uri][-1]  # type: ignore[attr-defined]
    for published in (app, newest):
        assert not [d for d in published.diagnostics if d.code == "WCT007"], published.diagnostics
        assert not [d for d in published.diagnostics if d.range.start.line == call_line and d.source == "warp-ct (measured)"]
    close_doc(client, app_uri)
