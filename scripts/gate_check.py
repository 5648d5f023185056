#!/usr/bin/env python3
"""Do the project gates hide a finding? Lint a corpus twice, gated and with every gate open.

    python scripts/gate_check.py                 # the installed warp-lang package
    python scripts/gate_check.py DIR [DIR ...]   # e.g. unpacked mujoco-warp, newton

The gates (a rule's text ``triggers`` and its ``needs_tree`` over the project view) decide
which files get a tree: they may let through files without a finding, never hide one.
The open run builds a tree for every Warp-using file and runs every rule on it (minutes
on a large corpus). Prints the findings only one of the runs has; exits 1 if any.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from warp_ct.analyzer.engine import Linter  # noqa: E402
from warp_ct.analyzer.rules import all_rules  # noqa: E402
from warp_ct.config import Config  # noqa: E402


def open_gates(rule):
    """The rule as a subclass whose gates always say yes (the original is untouched)."""
    return type(f"Open{type(rule).__name__}", (type(rule),), {"triggers": (), "needs_tree": lambda self, s, p: True})()


def findings(paths: list[str], rules) -> set[tuple]:
    # Generous budgets: a file cut short in one run only would read as a difference.
    linter = Linter(Config(select=("ALL",), exclude=()), rules=rules, inference_budget_s=30.0, file_budget_s=None)
    return {
        (f.rule, f.path, f.range.start.line + 1, f.range.start.character + 1, f.message)
        for result in linter.lint_paths(paths)
        for f in result.findings
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="*", help="corpus directories (default: the installed warp-lang package)")
    args = parser.parse_args(argv)
    dirs = args.dirs
    if not dirs:
        spec = importlib.util.find_spec("warp")
        if spec is None or not spec.submodule_search_locations:
            raise SystemExit("warp-lang is not installed: pass corpus directories")
        dirs = [list(spec.submodule_search_locations)[0]]
    start = time.perf_counter()
    gated = findings(dirs, list(all_rules()))
    middle = time.perf_counter()
    opened = findings(dirs, [open_gates(rule) for rule in all_rules()])
    end = time.perf_counter()
    print(f"gated: {len(gated)} findings in {middle - start:.1f} s; open gates: {len(opened)} in {end - middle:.1f} s")
    for label, only in (("hidden by a gate", opened - gated), ("only with gates", gated - opened)):
        for rule, path, line, col, message in sorted(only):
            print(f"{label}: {path}:{line}:{col}: {rule} {message}")
    return 1 if gated != opened else 0


if __name__ == "__main__":
    sys.exit(main())
