"""End-to-end tests with headless Neovim (Debian's 0.7.2 is enough: vim.lsp.start_client).

* The quick-fix round trip against the real server (`python -m warp_ct serve`): open a file with a
  WCT005 antipattern, receive the diagnostic, request the code action, apply it, check the buffer.
* The same round trip and the ready-to-copy config (editors/nvim/warp_ct_0.8.lua with its user
  commands) against a small fake server that speaks the same contract, so that the harness and
  the configs are checked even when the real server is broken.

Skipped when `nvim` is not on PATH, unless WARP_CT_REQUIRE_NVIM=1 (CI), where that is a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.nvim

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CONFIG_DIR = ROOT / "editors" / "nvim"
FAKE_SERVER = HERE / "fake_server.py"
NVIM = shutil.which("nvim")
SERVER_IMPLEMENTED = (ROOT / "warp_ct" / "server" / "__init__.py").exists()

ANTIPATTERN = (
    "import warp as wp\n"
    "\n"
    '@wp.kernel(module_options={"enable_backward": False})\n'
    "def k(a: wp.array(dtype=float)):\n"
    "    pass\n"
)
FIXED_DECORATOR = '@wp.kernel(module="unique", module_options={"enable_backward": False})'
TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def nvim() -> str:
    if NVIM is None:
        if os.environ.get("WARP_CT_REQUIRE_NVIM") == "1":
            pytest.fail("nvim is not on PATH but WARP_CT_REQUIRE_NVIM=1 (apt-get install neovim)")
        pytest.skip("nvim is not on PATH (apt-get install neovim to run the Neovim tests)")
    return NVIM


@pytest.fixture
def real_server() -> None:
    if not SERVER_IMPLEMENTED:
        pytest.skip("the warp-ct language server (warp_ct/server/__init__.py) is not implemented yet")


def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "proj"\nversion = "0"\n')
    source = root / "kernels.py"
    source.write_text(ANTIPATTERN)
    return source


def run_nvim(nvim: str, script: Path, env: dict[str, str], cwd: Path, pre: list[str] = ()) -> dict:
    out = cwd / "nvim-result.json"
    full_env = {**os.environ, **env, "WARP_CT_OUT": str(out), "WARP_CT_TIMEOUT_MS": str(TIMEOUT_MS)}
    full_env.pop("NVIM_LISTEN_ADDRESS", None)
    # The server subprocess imports warp_ct from this checkout even when it is not pip-installed.
    full_env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    full_env["XDG_STATE_HOME"] = str(cwd / "state")  # keep lsp.log out of the user's home
    cmd = [nvim, "--headless", "-u", "NONE", "-i", "NONE", "-c", "filetype on"]
    for c in pre:
        cmd += ["-c", c]
    cmd += ["-c", f"luafile {script}"]
    proc = subprocess.run(cmd, cwd=cwd, env=full_env, capture_output=True, text=True, timeout=4 * TIMEOUT_MS / 1000)
    assert out.exists(), f"nvim wrote no result (exit {proc.returncode})\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return json.loads(out.read_text())


def check_quick_fix(result: dict, source: Path) -> None:
    assert "error" not in result, json.dumps(result, indent=2)
    assert result["filetype"] == "python"
    assert "WCT005" in result["codes_before"]
    diag = result["diagnostic"]
    assert diag["code"] == "WCT005"
    assert diag["source"] == "warp-ct"
    assert diag["line"] == 2
    assert diag["href"], "diagnostics link to the rule's docs (codeDescription.href)"
    assert any(a["kind"] == "quickfix" for a in result["actions"]), result["actions"]
    assert result["lines_after"][2] == FIXED_DECORATOR, result["lines_after"]
    assert result["lines_after"][:2] == ANTIPATTERN.splitlines()[:2]
    assert result["lines_after"][3:] == ANTIPATTERN.splitlines()[3:]
    assert result["cleared"], f"WCT005 still reported after the fix: {result['codes_after']}"
    assert source.read_text() == ANTIPATTERN, "the fix edits the buffer, not the file on disk"


def test_quick_fix_with_real_server(nvim: str, real_server: None, tmp_path: Path) -> None:
    source = project(tmp_path)
    result = run_nvim(
        nvim,
        HERE / "nvim_codeaction.lua",
        {"WARP_CT_PYTHON": sys.executable, "WARP_CT_FILE": str(source)},
        tmp_path,
    )
    check_quick_fix(result, source)


def test_quick_fix_harness_with_fake_server(nvim: str, tmp_path: Path) -> None:
    source = project(tmp_path)
    result = run_nvim(
        nvim,
        HERE / "nvim_codeaction.lua",
        {
            "WARP_CT_PYTHON": sys.executable,
            "WARP_CT_SERVER_ARGS": json.dumps([str(FAKE_SERVER)]),
            "WARP_CT_FILE": str(source),
        },
        tmp_path,
    )
    check_quick_fix(result, source)


def fake_interpreter(tmp_path: Path) -> Path:
    """An 'interpreter' that ignores `-m warp_ct serve` and runs the fake server instead."""
    wrapper = tmp_path / "fake-python"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_SERVER}"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return wrapper


def lua_string(s: str) -> str:
    return json.dumps(s)  # a JSON string literal is a valid Lua string literal for these paths


def test_ready_to_copy_config_with_fake_server(nvim: str, tmp_path: Path) -> None:
    source = project(tmp_path)
    python = fake_interpreter(tmp_path)
    log = tmp_path / "fake-server.jsonl"
    result = run_nvim(
        nvim,
        HERE / "nvim_config.lua",
        {
            "WARP_CT_CONFIG_DIR": str(CONFIG_DIR),
            "WARP_CT_FILE": str(source),
            "WARP_CT_FAKE_LOG": str(log),
            "WARP_CT_MEASURE_CMD": "python3 'my script.py' --steps 1",
        },
        tmp_path,
        pre=[
            f"lua vim.g.warp_ct_python = {lua_string(str(python))}",
            'lua vim.g.warp_ct_settings = { select = { "WCT0" }, samples = 2 }',
        ],
    )
    assert "error" not in result, json.dumps(result, indent=2)
    assert result["modern_compiles"], result["modern_compile_error"]
    assert all(result["user_commands"].values()), result["user_commands"]
    assert result["cmd"] == [str(python), "-m", "warp_ct", "serve"]
    assert Path(result["root_dir"]) == source.parent, "root is the folder with pyproject.toml"
    assert result["got_diagnostics"] and result["codes"] == ["WCT005"]
    assert result["lint_done"] and result["lint"] == {"files": 1, "findings": 1}
    assert result["measure_done"], result["notifications"]
    assert result["measure"]["summary"] == "cold 1.0 s / warm 0.1 s"
    assert any("cold 1.0 s / warm 0.1 s" in n for n in result["notifications"])

    events = [json.loads(line) for line in log.read_text().splitlines()]
    by_kind = {}
    for e in events:
        by_kind.setdefault(e["kind"], []).append(e["value"])
    init = by_kind["initializationOptions"][0]
    assert init["select"] == ["WCT0"] and init["samples"] == 2
    assert init["severity"] == {}, "an empty severity must be sent as an object, not []"
    assert init["lintOnChange"] is True
    assert by_kind["didChangeConfiguration"][0]["warpCt"]["select"] == ["WCT0"]
    assert by_kind["measure"] == [
        {"argv": ["python3", "my script.py", "--steps", "1"], "cwd": str(source.parent), "samples": 2}
    ]


def test_ready_to_copy_config_with_real_server(nvim: str, real_server: None, tmp_path: Path) -> None:
    source = project(tmp_path)
    result = run_nvim(
        nvim,
        HERE / "nvim_config.lua",
        {
            "WARP_CT_CONFIG_DIR": str(CONFIG_DIR),
            "WARP_CT_FILE": str(source),
            "WARP_CT_MEASURE_CMD": f"{sys.executable} -c pass",
        },
        tmp_path,
        pre=[
            f"lua vim.g.warp_ct_python = {lua_string(sys.executable)}",
            "lua vim.g.warp_ct_settings = { samples = 1 }",
        ],
    )
    assert "error" not in result, json.dumps(result, indent=2)
    assert result["cmd"] == [sys.executable, "-m", "warp_ct", "serve"]
    assert result["got_diagnostics"] and "WCT005" in result["codes"]
    assert result["lint_done"], result["notifications"]
    assert result["lint"]["files"] >= 1 and result["lint"]["findings"] >= 1
    assert result["measure_done"], result["notifications"]
    assert result["measure"]["summary"], result["measure"]
    assert any(n.startswith("warp-ct: ") for n in result["notifications"]), result["notifications"]


def test_configs_share_the_user_commands() -> None:
    def block(name: str) -> str:
        text = (CONFIG_DIR / name).read_text()
        start = text.index("-- >>> warp-ct user commands")
        end = text.index("-- <<< warp-ct user commands <<<")
        return text[start:end]

    assert block("warp_ct.lua") == block("warp_ct_0.8.lua")
    modern = (CONFIG_DIR / "warp_ct.lua").read_text()
    legacy = (CONFIG_DIR / "warp_ct_0.8.lua").read_text()
    assert 'vim.lsp.config("warp_ct"' in modern and 'vim.lsp.enable("warp_ct")' in modern
    assert "vim.lsp.start(" in legacy and '"FileType"' in legacy
    for text in (modern, legacy):
        assert '"-m", "warp_ct", "serve"' in text
        assert 'settings = { warpCt = settings }' in text
