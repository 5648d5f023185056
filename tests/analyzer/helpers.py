"""Lint small multi-file projects written to a temp dir."""

from __future__ import annotations

from pathlib import Path

from warp_ct.analyzer.engine import Linter
from warp_ct.analyzer.model import Finding
from warp_ct.config import load_config


def write_files(root: Path, files: dict[str, str]) -> None:
    """Write ``files`` (relative name -> text) under ``root``, creating folders."""
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def lint_files(tmp_path: Path, files: dict[str, str], **config_overrides) -> list[Finding]:
    """Write ``files`` (relative name -> text) under tmp_path and lint them all together."""
    write_files(tmp_path, files)
    config = load_config(tmp_path).with_overrides(**config_overrides)
    results = Linter(config).lint_paths([str(tmp_path)])
    findings = [f for r in results for f in r.findings]
    root = str(tmp_path) + "/"
    return [f.__class__(**{**f.__dict__, "path": f.path.removeprefix(root)}) for f in findings]


def lint_snippet(tmp_path: Path, text: str, name: str = "example.py", **config_overrides) -> list[Finding]:
    return lint_files(tmp_path, {name: text}, **config_overrides)


def rule_filter(code: str):
    """A function keeping only the findings of rule ``code``."""

    def only(findings: list[Finding]) -> list[Finding]:
        return [f for f in findings if f.rule == code]

    return only
