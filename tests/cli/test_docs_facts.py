"""What the README and the editor docs state about settings, exit codes and pre-commit is
what the code defines."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from warp_ct.probe import compare
from warp_ct.probe import errors as probe_errors

from .conftest import ROOT

SETTINGS_DOCS = ("README.md", "docs/editors.md", "vscode-extension/README.md")


def _text(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def _settings_rows(text: str) -> dict[str, str]:
    """`warpCt.*` setting -> its default cell, from markdown table rows."""
    rows = {}
    for line in text.splitlines():
        match = re.match(r"\|\s*`(warpCt\.[\w.]+)`\s*\|\s*([^|]*?)\s*\|", line)
        if match:
            rows[match[1]] = match[2]
    return rows


@pytest.mark.parametrize("doc", SETTINGS_DOCS)
def test_every_extension_setting_is_in_the_settings_table_with_its_default(doc):
    manifest = json.loads(_text("vscode-extension/package.json"))
    properties = manifest["contributes"]["configuration"]["properties"]
    rows = _settings_rows(_text(doc))
    assert sorted(rows) == sorted(properties), f"{doc}: the settings table and package.json list different settings"
    for name, spec in properties.items():
        assert rows[name] == f"`{json.dumps(spec['default'])}`", f"{doc}: {name}'s default"


def _exit_codes(command: str) -> set[int]:
    """The codes in the README's exit-code table row of ``command``."""
    readme = _text("README.md")
    row = next(line for line in readme.splitlines() if line.startswith(f"| `{command}` |"))
    cell = row.split("|")[2]
    return {int(code) for code in re.findall(r"(?:^|·)\s*(\d+) ", cell)}


def test_the_exit_code_tables_list_the_codes_the_code_defines():
    probe_codes = {value for name, value in vars(probe_errors).items() if name.startswith("EXIT_")}
    assert 126 in probe_codes
    assert _exit_codes("probe measure") == probe_codes
    compare_codes = set(compare.VERDICT_EXIT_CODES.values()) | {probe_errors.EXIT_USAGE}
    assert _exit_codes("probe compare") == compare_codes
    assert _exit_codes("confirm") == {0, 1, 2}
    assert _exit_codes("cache-key") == {0, 2, probe_errors.EXIT_WARP_MISSING}


def test_the_file_time_budget_the_docs_state_is_the_engines():
    from warp_ct.analyzer.engine import DEFAULT_FILE_BUDGET_S

    for name in ("README.md", "docs/rules/WCT901.md"):
        assert f"{DEFAULT_FILE_BUDGET_S:g} s of CPU time" in _text(name), name


# How far the commit the README pins may trail HEAD.
MAX_COMMITS_BEHIND = 60


def _pinned_shas(readme: str) -> set[str]:
    shas = set(re.findall(r"^\s*rev: ([0-9a-f]+)", readme, re.MULTILINE))
    shas |= set(re.findall(r"git\+https://\S+?@([0-9a-f]+)\"", readme))
    return shas


def test_the_pre_commit_example_uses_this_repositorys_hook_ids_at_a_commit_sha():
    readme = _text("README.md")
    block = readme[readme.index("# .pre-commit-config.yaml") :]
    block = block[: block.index("```")]
    readme_ids = re.findall(r"- id: ([\w-]+)", block)
    hook_ids = re.findall(r"^- id: ([\w-]+)", _text(".pre-commit-hooks.yaml"), re.MULTILINE)
    assert readme_ids and set(readme_ids) <= set(hook_ids)
    assert "rev: v" not in readme, "there are no release tags: pin a commit SHA"
    shas = _pinned_shas(readme)
    assert len(shas) == 1 and all(re.fullmatch(r"[0-9a-f]{40}", sha) for sha in shas), shas


def test_the_pinned_commit_exists_and_has_these_hooks():
    (sha,) = _pinned_shas(_text("README.md"))
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    if subprocess.run([git, "cat-file", "-e", f"{sha}^{{commit}}"], cwd=ROOT, capture_output=True, check=False).returncode != 0:
        pytest.skip(f"commit {sha} is not in this clone (shallow?)")
    hooks = subprocess.run([git, "show", f"{sha}:.pre-commit-hooks.yaml"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert hooks.returncode == 0, hooks.stderr
    assert {"warp-ct", "warp-ct-fix"} <= set(re.findall(r"^- id: ([\w-]+)", hooks.stdout, re.MULTILINE))
    # Users copy the pin: an old one installs a warp-ct without the fixes since (the pin
    # once trailed by 146 commits, before the lint cache was signed).
    behind = subprocess.run([git, "rev-list", "--count", f"{sha}..HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert int(behind.stdout) <= MAX_COMMITS_BEHIND, f"the README pins {sha}, {behind.stdout.strip()} commits old: pin a recent one"


def test_no_doc_offers_an_install_from_pypi():
    # warp-ct is not on PyPI: `pip install warp-ct` would fail (or install someone else's package).
    docs = (*SETTINGS_DOCS, "vscode-extension/src/core.ts", ".ci/run", "editors/nvim/warp_ct.lua", "editors/nvim/warp_ct_0.8.lua")
    for doc in docs:
        assert "pip install warp-ct" not in _text(doc), doc
