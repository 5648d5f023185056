"""The files that plug warp-ct into existing tooling: pre-commit hooks and the README's
CI / ruff snippets."""

from __future__ import annotations

import re

import yaml

from warp_ct.cli import build_parser

from .conftest import ROOT


def test_pre_commit_hooks_run_warp_ct_lint():
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    by_id = {hook["id"]: hook for hook in hooks}
    assert set(by_id) == {"warp-ct", "warp-ct-fix"}
    for hook in hooks:
        assert hook["language"] == "python"
        assert hook["types_or"] == ["python", "pyi"]
        assert hook["require_serial"] is True
        assert hook["entry"].startswith("warp-ct lint ")
        # every flag in the entry exists
        build_parser().parse_args(hook["entry"].split()[1:] + ["x.py"])
    assert "--fix" in by_id["warp-ct-fix"]["entry"] and "--fix" not in by_id["warp-ct"]["entry"]


def test_readme_first_blocks_and_snippets():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", readme, re.DOTALL)
    assert blocks[0] == "pip install -e '.[dev]' && warp-ct lint --exit-zero examples/\n"
    assert blocks[1] == "python -m pytest\n"
    assert 'external = ["WCT"]' in readme and "[tool.ruff.lint]" in readme
    assert "github/codeql-action/upload-sarif" in readme and "--output-format sarif" in readme
    assert "security-events: write" in readme
    for heading in ("## Editors", "## Measuring with the probe", "## Configuration", "### Exit codes"):
        assert heading in readme
    assert "TODO" not in readme


def test_readme_command_examples_parse():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    parser = build_parser()
    for line in re.findall(r"^(warp-ct (?:lint|fix|rules|explain)[^#\n]*)", readme, re.MULTILINE):
        args = line.split()[1:]
        if "[PATH" in line or "CODE|NAME" in line:
            continue
        parser.parse_args(args)
