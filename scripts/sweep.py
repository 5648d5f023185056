#!/usr/bin/env python3
"""Crash sweep: lint every .py file of the standard library and of warp-lang with every rule.

    python scripts/sweep.py                 # stdlib + installed warp-lang
    python scripts/sweep.py DIR [DIR ...]   # other trees
    python scripts/sweep.py -j 2 --gates    # keep the engine's cheap gates (see below)

By default the cheap gates are OFF: every file gets a tree and every rule runs on
it, even files that never mention Warp and files no rule's text trigger matches, so that
rules meet every construct of real Python (the normal path would skip almost all of the
standard library). ``--gates`` sweeps the normal path instead.

Counts: files, lines, seconds, crashes (a WCT901 internal-rule-error finding, or an
exception escaping the engine), parse errors (WCT900: the stdlib ships deliberately broken
files), files whose time budget ran out. Exits 1 when anything crashed.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import sysconfig
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from warp_ct.analyzer.engine import Linter, read_source  # noqa: E402
from warp_ct.config import Config  # noqa: E402

SKIP_DIRS = {"site-packages", "dist-packages", "__pycache__"}


def default_roots() -> list[str]:
    roots = [sysconfig.get_paths()["stdlib"]]
    spec = importlib.util.find_spec("warp")  # finds it without importing it
    if spec is not None and spec.submodule_search_locations:
        roots.append(list(spec.submodule_search_locations)[0])
    return roots


def python_files(root: str) -> list[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        out.extend(os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".py"))
    return out


_linter: Linter | None = None


def _make_linter(gates: bool) -> Linter:
    linter = Linter(Config(select=("ALL",), exclude=()))
    if not gates:
        linter.project.uses_warp = lambda summary: True  # type: ignore[method-assign]
        for rule in linter.rules:
            type(rule).triggers = ()
    return linter


def _init(gates: bool) -> None:
    global _linter
    _linter = _make_linter(gates)


def _sweep_chunk(paths: list[str]) -> list[dict]:
    assert _linter is not None
    out = []
    for path in paths:
        source = read_source(path)
        lines = source.text.count("\n") + 1 if source.text else 0
        start = time.perf_counter()
        record = {"path": path, "lines": lines, "crash": None, "rule_errors": [], "parse_error": None, "budget": False}
        try:
            result = _linter.lint_text(path, source.text) if source.text is not None else _linter.lint_source_file(source)
            for f in result.findings:
                if f.rule == "WCT901":
                    record["rule_errors"].append(f"{f.line}: {f.message}")
                elif f.rule == "WCT900":
                    record["parse_error"] = f.message
            record["budget"] = any("budget" in n for n in result.notes)
            if source.text is None and not record["parse_error"]:
                record["parse_error"] = "; ".join(result.notes)
        except BaseException as exc:  # noqa: BLE001 - this is what we are hunting
            if isinstance(exc, KeyboardInterrupt):
                raise
            record["crash"] = "".join(traceback.format_exception(exc))[-2000:]
        record["seconds"] = time.perf_counter() - start
        out.append(record)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="*", help="directories (default: stdlib and warp-lang)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--gates", action="store_true", help="keep the warp/trigger gates (normal lint path)")
    parser.add_argument("--slowest", type=int, default=5, help="list the N slowest files")
    args = parser.parse_args(argv)
    roots = args.roots or default_roots()
    total_crashes = 0
    for root in roots:
        files = python_files(root)
        start = time.perf_counter()
        chunks = [files[i : i + 20] for i in range(0, len(files), 20)]
        records: list[dict] = []
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs, initializer=_init, initargs=(args.gates,)) as pool:
                for part in pool.map(_sweep_chunk, chunks):
                    records.extend(part)
        else:
            _init(args.gates)
            for chunk in chunks:
                records.extend(_sweep_chunk(chunk))
        elapsed = time.perf_counter() - start
        crashes = [r for r in records if r["crash"]]
        rule_errors = [r for r in records if r["rule_errors"]]
        parse_errors = [r for r in records if r["parse_error"]]
        budget = [r for r in records if r["budget"]]
        print(f"== {root}")
        print(
            f"files {len(records)}  lines {sum(r['lines'] for r in records)}  seconds {elapsed:.1f}  "
            f"crashes {len(crashes)}  rule-errors(WCT901) {sum(len(r['rule_errors']) for r in rule_errors)} "
            f"in {len(rule_errors)} files  parse-errors {len(parse_errors)}  budget-hit {len(budget)}"
        )
        for r in crashes:
            print(f"CRASH {r['path']}\n{r['crash']}")
        for r in rule_errors:
            for e in r["rule_errors"]:
                print(f"RULE-ERROR {r['path']}:{e}")
        for r in budget:
            print(f"BUDGET {r['path']} ({r['seconds']:.1f} s)")
        for r in sorted(records, key=lambda r: -r["seconds"])[: args.slowest]:
            print(f"slow {r['seconds']:.2f} s  {r['lines']} lines  {r['path']}")
        total_crashes += len(crashes) + len(rule_errors)
    return 1 if total_crashes else 0


if __name__ == "__main__":
    raise SystemExit(main())
