"""`warp-ct.measureLevers` over a real `warp-ct serve`, and where the editor's reports go."""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient, client_capabilities

from tests.server.helpers import config, wait_for
from warp_ct.server.measure import KEEP_MEASUREMENTS, reports_dir

in_server_loop = pytest.mark.asyncio(loop_scope="module")

FORWARD_ONLY = '''import warp as wp


@wp.kernel
def scale(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = wp.sin(a[i]) * s


if __name__ == "__main__":
    a = wp.zeros(16, dtype=float, device="cpu")
    wp.launch(scale, dim=16, inputs=[a, 2.0], device="cpu")
    wp.synchronize()
'''

SLEEPER = "import time\ntime.sleep(120)\n"


@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: LanguageClient, tmp_path_factory):
    workspace = tmp_path_factory.mktemp("ws-levers")
    params = types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        root_uri=from_fs_path(str(workspace)),
        workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(workspace)), name="ws")],
    )
    await lsp_client.initialize_session(params)
    lsp_client.workspace = workspace  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


def _measure_dirs() -> set[str]:
    return {name for name in os.listdir(tempfile.gettempdir()) if name.startswith("warp-ct-measure-")}


@pytest.mark.warp
@in_server_loop
async def test_levers_command_measures_and_writes_to_the_project_cache(client: LanguageClient):
    workspace: Path = client.workspace  # type: ignore[attr-defined]
    program = workspace / "forward.py"
    program.write_text(FORWARD_ONLY)
    before_tmp = _measure_dirs()
    before = set(client.progress_reports)
    result = await asyncio.wait_for(
        client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="warp-ct.measureLevers",
            arguments=[{"argv": [sys.executable, str(program)], "cwd": str(workspace), "samples": 1, "only": "backward"}],
        )),  # fmt: skip
        300,
    )
    assert result["ok"] is True, result
    (row,) = result["levers"]
    assert row["name"] == "backward" and row["status"] == "measured" and row["verdict"]
    assert row["line"] == "wp.config.enable_backward = False" and row["unsafe"] is False
    cache = workspace / ".warp_ct_cache"
    assert Path(result["jsonPath"]).parent.parent == cache / "measurements"
    assert Path(result["htmlPath"]).is_file() and Path(result["summaryPath"]).is_file()
    assert (cache / ".gitignore").read_text().strip().endswith("*")
    assert _measure_dirs() == before_tmp
    (token,) = [t for t in client.progress_reports if t not in before]
    kinds = [r.kind for r in client.progress_reports[token]]
    assert kinds[0] == "begin" and "report" in kinds and kinds[-1] == "end"
    assert client.progress_reports[token][0].title == "Measuring option levers"


@in_server_loop
async def test_levers_command_is_cancellable(client: LanguageClient):
    workspace: Path = client.workspace  # type: ignore[attr-defined]
    script = workspace / "sleeper.py"
    script.write_text(SLEEPER)
    before = set(client.progress_reports)
    task = asyncio.ensure_future(
        client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="warp-ct.measureLevers", arguments=[[sys.executable, str(script)], str(workspace), 1, None],
        ))  # fmt: skip
    )
    token = await wait_for(
        lambda: next((t for t, r in client.progress_reports.items() if t not in before and r), None), what="progress begin"
    )
    assert client.progress_reports[token][0].cancellable
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    result = await asyncio.wait_for(task, 30)
    assert result["ok"] is False and result["cancelled"] is True and result["exitCode"] == 130


@in_server_loop
async def test_levers_command_rejects_bad_arguments(client: LanguageClient):
    with pytest.raises(JsonRpcException):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="warp-ct.measureLevers", arguments=[["python", "x.py"], None, 1, 42])
        )
    unknown = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="warp-ct.measureLevers", arguments=[["python", "x.py"], None, 1, "turbo"])
    )
    assert unknown["ok"] is False and "unknown lever 'turbo'" in unknown["summary"]


def test_reports_dir_keeps_a_bounded_history(tmp_path, monkeypatch):
    monkeypatch.delenv("WARP_CT_CACHE_DIR", raising=False)
    server = SimpleNamespace(workspace_roots=lambda: [tmp_path])
    made = [reports_dir(server, str(tmp_path / "sub"), "measure") for _ in range(KEEP_MEASUREMENTS + 3)]
    history = tmp_path / ".warp_ct_cache" / "measurements"
    kept = sorted(p.name for p in history.iterdir())
    assert len(kept) == KEEP_MEASUREMENTS and made[-1].name in kept and made[0].name not in kept
    monkeypatch.setenv("WARP_CT_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert reports_dir(server, None, "levers").parent == tmp_path / "elsewhere" / "measurements"


def test_reports_dir_never_prunes_through_links_a_repository_planted(tmp_path, monkeypatch):
    # A cloned repository commits `.warp_ct_cache -> ~/precious` (or `measurements -> ~`):
    # measuring must not write there, and pruning must never remove folders it points at.
    monkeypatch.delenv("WARP_CT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    precious = tmp_path / "precious"
    for i in range(KEEP_MEASUREMENTS + 5):
        (precious / f"20200101T000000{i:06d}Z-measure-abcdef").mkdir(parents=True)
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".warp_ct_cache").symlink_to(precious, target_is_directory=True)
    server = SimpleNamespace(workspace_roots=lambda: [repo])
    for _ in range(KEEP_MEASUREMENTS + 2):
        made = reports_dir(server, str(repo), "measure")
    assert made.parent == tmp_path / "user-cache" / "warp-ct" / ".warp_ct_cache" / "measurements"
    assert len(list(precious.iterdir())) == KEEP_MEASUREMENTS + 5
    assert not (precious / ".gitignore").exists()

    # `measurements` itself a link: refused, nothing removed.
    other = tmp_path / "other"
    (other / ".warp_ct_cache").mkdir(parents=True)
    (other / ".warp_ct_cache" / "measurements").symlink_to(precious, target_is_directory=True)
    with pytest.raises(OSError, match="is a link"):
        reports_dir(SimpleNamespace(workspace_roots=lambda: [other]), str(other), "measure")
    assert len(list(precious.iterdir())) == KEEP_MEASUREMENTS + 5


def test_pruning_removes_only_measurement_folders(tmp_path, monkeypatch):
    monkeypatch.delenv("WARP_CT_CACHE_DIR", raising=False)
    history = tmp_path / ".warp_ct_cache" / "measurements"
    history.mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("x")
    (history / "00000000T000000000000Z-measure-aaaaaa").symlink_to(outside, target_is_directory=True)
    (history / "notes").mkdir()
    server = SimpleNamespace(workspace_roots=lambda: [tmp_path])
    for _ in range(KEEP_MEASUREMENTS + 2):
        reports_dir(server, str(tmp_path), "measure")
    assert (outside / "keep.txt").exists() and (history / "notes").is_dir()
    assert (history / "00000000T000000000000Z-measure-aaaaaa").is_symlink()
