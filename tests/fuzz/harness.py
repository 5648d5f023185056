"""Run every rule on any source: the engine's cheap gates (mentions Warp? trigger matches?)
are bypassed so that generated code reaches the rules' checks."""

from __future__ import annotations

from functools import lru_cache

from warp_ct.analyzer.engine import Linter
from warp_ct.analyzer.model import FileResult
from warp_ct.analyzer.project import Project
from warp_ct.analyzer.rules import all_rules
from warp_ct.config import Config


@lru_cache(maxsize=1)
def ungated_rules() -> tuple:
    """Each rule as a subclass without text triggers (the originals are left untouched)."""
    return tuple(type(f"Ungated{type(r).__name__}", (type(r),), {"triggers": ()})() for r in all_rules())


def ungated_linter(config: Config | None = None) -> Linter:
    project = Project()
    project.uses_warp = lambda summary: True  # type: ignore[method-assign]
    return Linter(config or Config(select=("ALL",)), rules=ungated_rules(), project=project)


def lint_everything(text: str, path: str = "fuzzed.py") -> FileResult:
    """Lint ``text`` with every rule; raises if anything escapes the engine."""
    return ungated_linter().lint_text(path, text)


def assert_no_crash(result: FileResult, text: str) -> None:
    errors = [f for f in result.findings if f.rule == "WCT901"]
    assert not errors, f"rule crashed: {errors[0].message}\n--- source ---\n{text}"
