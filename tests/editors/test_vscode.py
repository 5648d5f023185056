"""End to end in a real VS Code: code-server (VS Code 1.100 from npm) in headless Chromium, driven
by puppeteer-core (``vscode/drive.cjs``), with the freshly built ``.vsix`` installed.

Scenario, a screenshot per step (into $WARP_CT_ARTIFACTS/vscode when set, else the test's tmp dir):
open a project; squiggles and Problems rows with the rule code and its docs link; the hover shows
the rule's docs; the light bulb's quick fix changes the file and its squiggle goes away; "Warp:
Measure compile time" runs with progress, then code lenses appear above the kernels, the status
bar shows the measurement, a problem both the linter and the measurement found is one Problems
row (the static one, with the measured figures), and the probe's HTML timeline opens in a
webview beside the code; in an
untrusted workspace measuring is refused with a message.

Needs code-server + puppeteer-core (``vscode/install-code-server.sh``, cached under
~/.cache/warp-ct-ci), Debian's chromium, and the .vsix (``npm run package``). Skipped when one is
missing, unless WARP_CT_REQUIRE_CODE_SERVER=1 (CI), where that is a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = [pytest.mark.vscode, pytest.mark.warp]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DRIVER = HERE / "vscode" / "drive.cjs"
VERSION = "4.100.3"
CODE_SERVER_DIR = Path(
    os.environ.get("WARP_CT_CODE_SERVER_DIR") or Path.home() / ".cache" / "warp-ct-ci" / f"code-server-{VERSION}"
)
CODE_SERVER = CODE_SERVER_DIR / "node_modules" / ".bin" / "code-server"
PUPPETEER = CODE_SERVER_DIR / "node_modules" / "puppeteer-core"
CHROMIUM = os.environ.get("WARP_CT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
REQUIRED = os.environ.get("WARP_CT_REQUIRE_CODE_SERVER") == "1"

KERNELS = '''"""A small Warp program: two kernels, launched on the CPU."""
import warp as wp


@wp.kernel(module_options={"enable_backward": False})
def scale(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] * s


@wp.kernel
def shift(a: wp.array(dtype=float), b: float):
    i = wp.tid()
    a[i] = a[i] + b


if __name__ == "__main__":
    a = wp.ones(16, dtype=float, device="cpu")
    wp.launch(scale, dim=16, inputs=[a, 2.0], device="cpu")
    wp.launch(shift, dim=16, inputs=[a, 1.0], device="cpu")
    print(a.numpy().sum())
'''
FIXED = '@wp.kernel(module="unique", module_options={"enable_backward": False})'


def _missing() -> list[str]:
    missing = []
    if not CODE_SERVER.exists() or not PUPPETEER.exists():
        missing.append(f"code-server/puppeteer-core in {CODE_SERVER_DIR} (tests/editors/vscode/install-code-server.sh)")
    if not Path(CHROMIUM).exists():
        missing.append("chromium (apt-get install chromium)")
    if shutil.which("node") is None:
        missing.append("node")
    if _vsix() is None:
        missing.append("the .vsix (npm run package)")
    return missing


def _vsix() -> Path | None:
    if os.environ.get("WARP_CT_VSIX"):
        return Path(os.environ["WARP_CT_VSIX"])
    found = sorted((ROOT / "vscode-extension").glob("*.vsix"), key=lambda p: p.stat().st_mtime)
    return found[-1] if found else None


def artifacts_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = os.environ.get("WARP_CT_ARTIFACTS")
    out = Path(base) / "vscode" if base else tmp_path_factory.mktemp("vscode-artifacts")
    out.mkdir(parents=True, exist_ok=True)
    return out


@pytest.fixture(scope="module")
def extensions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An extensions folder with the freshly built .vsix installed (once per run)."""
    missing = _missing()
    if missing:
        message = "missing for the VS Code end-to-end tests: " + "; ".join(missing)
        if REQUIRED:
            pytest.fail(message + " (WARP_CT_REQUIRE_CODE_SERVER=1)")
        pytest.skip(message)
    base = tmp_path_factory.mktemp("code-server")
    ext_dir, user_dir = base / "extensions", base / "install-user"
    config = base / "config.yaml"  # not ~/.config/code-server/config.yaml
    config.write_text("auth: none\n")
    proc = subprocess.run(
        [str(CODE_SERVER), "--config", str(config), "--user-data-dir", str(user_dir), "--extensions-dir", str(ext_dir),
         "--install-extension", str(_vsix())],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert proc.returncode == 0, f"installing the .vsix failed:\n{proc.stdout}\n{proc.stderr}"
    installed = [p.name for p in ext_dir.iterdir() if p.is_dir()]
    assert any(name.startswith("warp-ct.warp-ct") for name in installed), installed
    return ext_dir


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _project(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0"\n')
    (root / "kernels.py").write_text(KERNELS)
    return root


class CodeServer:
    def __init__(self, base: Path, ext_dir: Path, folder: Path, settings: dict) -> None:
        self.user_dir = base / "user"
        (self.user_dir / "User").mkdir(parents=True)
        (self.user_dir / "User" / "settings.json").write_text(json.dumps(settings, indent=2))
        self.port = _free_port()
        self.log = base / "code-server.log"
        config = base / "code-server.yaml"  # not ~/.config/code-server/config.yaml
        config.write_text("auth: none\n")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
        env.pop("VSCODE_IPC_HOOK_CLI", None)
        self.proc = subprocess.Popen(
            [str(CODE_SERVER), "--config", str(config), "--user-data-dir", str(self.user_dir), "--extensions-dir", str(ext_dir),
             "--auth", "none", "--bind-addr", f"127.0.0.1:{self.port}", "--disable-telemetry",
             "--disable-update-check", str(folder)],
            stdout=self.log.open("w"), stderr=subprocess.STDOUT, env=env, start_new_session=True, cwd=base,
        )  # fmt: skip
        self.url = f"http://127.0.0.1:{self.port}/?folder={folder}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"code-server exited {self.proc.returncode}:\n{self.log.read_text()}")
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2).read()
                return
            except OSError:
                time.sleep(0.3)
        raise AssertionError(f"code-server did not answer in 60 s:\n{self.log.read_text()}")

    def stop(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)  # the extension host and the language server too
        except ProcessLookupError:
            return
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)


def drive(server: CodeServer, scenario: str, shots: Path, work: Path) -> dict:
    spec = {
        "puppeteer": str(PUPPETEER),
        "chromium": CHROMIUM,
        "url": server.url,
        "file": "kernels.py",
        "scenario": scenario,
        "screenshots": str(shots),
        "result": str(work / f"{scenario}-result.json"),
        "timeoutMs": 60_000,
    }
    spec_path = work / f"{scenario}-spec.json"
    spec_path.write_text(json.dumps(spec))
    proc = subprocess.run(["node", str(DRIVER), str(spec_path)], capture_output=True, text=True, timeout=600)
    result_path = Path(spec["result"])
    assert result_path.exists(), f"the driver wrote no result (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    result = json.loads(result_path.read_text())
    result["_exit"] = proc.returncode
    result["_stderr"] = proc.stderr[-4000:]
    (shots / f"{scenario}-result.json").write_text(json.dumps(result, indent=2))
    return result


def explain(result: dict, server: CodeServer) -> str:
    steps = "\n".join(f"  {'ok ' if s['ok'] else 'FAIL'} {s['name']} ({s.get('ms', 0)} ms) {s.get('screenshot', '')}" for s in result["steps"])
    log = server.log.read_text()[-3000:] if server.log.exists() else ""
    return f"{result.get('error', '')}\nsteps:\n{steps}\nfacts: {json.dumps(result['facts'], indent=1)[:6000]}\ncode-server log tail:\n{log}"


BASE_SETTINGS = {
    "warpCt.interpreter": sys.executable,
    "warpCt.samples": 1,
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": False,
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": False,
    "extensions.ignoreRecommendations": True,
    "update.mode": "none",
    "editor.hover.delay": 300,
    "editor.codeLens": True,
    "window.restoreWindows": "none",
    "chat.commandCenter.enabled": False,
}


def test_vscode_scenario(extensions: Path, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    shots = artifacts_dir(tmp_path_factory)
    folder = _project(tmp_path / "demo")
    server = CodeServer(tmp_path, extensions, folder, {**BASE_SETTINGS, "security.workspace.trust.enabled": False})
    try:
        result = drive(server, "trusted", shots, tmp_path)
    finally:
        server.stop()
    why = explain(result, server)
    assert result["_exit"] == 0 and all(s["ok"] for s in result["steps"]), why
    facts = result["facts"]

    # squiggles, and Problems rows with the rule code, source and docs link
    assert facts["squiggles"], why
    wct005 = [r for r in facts["problems"] if "WCT005" in r["text"]]
    assert wct005 and "warp-ct" in wct005[0]["text"], why
    assert any("docs/rules/WCT005" in link["href"] or "WCT005" in link["href"] for link in wct005[0]["links"]), why
    # the hover explains the rule
    assert "WCT005" in facts["hover"] and "module=\"unique\"" in facts["hover"].replace("\u201c", '"'), why
    # the light bulb offered the fix; it changed the file and the squiggle went away
    assert any("unique" in a for a in facts["actions"]), why
    assert FIXED in facts["linesAfter"], why
    assert not any("WCT005" in row for row in facts["problemsAfter"]), why
    assert (folder / "kernels.py").read_text().count('module="unique"') == 1, "the fix was saved"
    # measuring: progress, then code lenses above the kernels and the measurement in the status bar
    assert "kernels.py" in facts["prefilled"], why
    assert "measuring compile time" in facts["progress"], why
    assert any("built" in lens for lens in facts["lenses"]), why
    assert "Warp: cold" in facts["status"] and "warm" in facts["status"], why
    # one problem, one diagnostic: `shift`'s module compiles backward code nothing uses, found by the
    # linter (WCT010 on module `kernels`) and measured (the probe saw the script's module as
    # `__main__`): one row, the static one, carrying the measured figures; no second row for it
    # from the measurement, and no `__main__` in the editor
    wct010 = [r for r in facts["problemsAfterMeasure"] if "WCT010" in r]
    assert len(wct010) == 1, why
    assert "module `kernels`" in wct010[0] and "confirmed: measured at kernels.py:11: built 1× with backward code" in wct010[0], why
    assert "warp-ct (measured)" not in wct010[0] and "__main__" not in wct010[0], why
    assert not any("__main__" in r for r in facts["problemsAfterMeasure"]), why
    # and a measured problem about both kernels' modules is one row too, at the first kernel,
    # pointing at the other (a related-information row under it)
    single = [r for r in facts["problemsAfterMeasure"] if "modules hold a single kernel" in r]
    assert len(single) == 1 and "[Ln 5, Col 1]" in single[0], why
    assert any("[Ln 11, Col 1]" in r and "kernel `shift`" in r for r in facts["problemsAfterMeasure"]), why
    # the probe's HTML timeline in a webview beside the code
    assert any("timeline" in t.lower() for t in facts["tabs"]), why
    assert facts["editorGroups"] >= 2, why
    assert not any("summary.md" in t for t in facts["tabs"]), "the markdown summary no longer replaces the code"
    assert "scale" in facts["webviewText"] or "module" in facts["webviewText"].lower(), why


def test_vscode_untrusted_refuses_to_measure(extensions: Path, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    shots = artifacts_dir(tmp_path_factory)
    folder = _project(tmp_path / "demo")
    settings = {**BASE_SETTINGS, "security.workspace.trust.enabled": True, "security.workspace.trust.startupPrompt": "never",
                "security.workspace.trust.banner": "always"}  # fmt: skip
    server = CodeServer(tmp_path, extensions, folder, settings)
    try:
        result = drive(server, "untrusted", shots, tmp_path)
    finally:
        server.stop()
    why = explain(result, server)
    assert result["_exit"] == 0 and all(s["ok"] for s in result["steps"]), why
    facts = result["facts"]
    assert "disabled until you trust the workspace" in facts["refused"], why
    assert not facts["inputShown"], "nothing is asked (nor run) in an untrusted workspace"
    assert (folder / "kernels.py").read_text() == KERNELS
