"""`warp-ct serve` with a rule that always raises and a Linter that explodes on files named
``explode*.py`` — to check that neither kills the server."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from warp_ct.analyzer import engine  # noqa: E402
from warp_ct.analyzer.model import Severity  # noqa: E402
from warp_ct.analyzer.rules.base import Rule  # noqa: E402


class AlwaysRaises(Rule):
    code = "WCT999"
    name = "always-raises"
    severity = Severity.WARNING
    summary = "a test rule that raises"
    docs = "## What it does\nRaises.\n"

    def visit_functiondef(self, node, ctx):
        raise RuntimeError("this rule is broken on purpose")


_all_rules = engine.all_rules
engine.all_rules = lambda: (*_all_rules(), AlwaysRaises())
_lint_text = engine.Linter.lint_text


def lint_text(self, path, text):
    if Path(path).name.startswith("explode"):
        raise RuntimeError("the linter exploded on purpose")
    return _lint_text(self, path, text)


engine.Linter.lint_text = lint_text

if __name__ == "__main__":
    from warp_ct.server import main

    raise SystemExit(main())
