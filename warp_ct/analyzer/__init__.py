"""The analyzer: pure text-and-path in, findings out. No LSP, no subprocess, no warp import."""

from warp_ct.analyzer.engine import Linter, discover, lint_paths, lint_source, read_source
from warp_ct.analyzer.fixes import apply_fixes
from warp_ct.analyzer.model import (
    Applicability,
    Evidence,
    FileResult,
    Finding,
    Fix,
    Position,
    Range,
    Severity,
    TextEdit,
)
from warp_ct.analyzer.rules import all_rules, get_rule

__all__ = [
    "Applicability", "Evidence", "FileResult", "Finding", "Fix", "Linter", "Position", "Range", "Severity",
    "TextEdit", "all_rules", "apply_fixes", "discover", "get_rule", "lint_paths", "lint_source", "read_source",
]  # fmt: skip
