#!/usr/bin/env python3
"""Lint throughput over a real Warp corpus, against bare ``ast.parse`` measured in the same run.

    python benchmarks/lint_throughput.py                     # the installed warp-lang package
    python benchmarks/lint_throughput.py DIR [DIR ...]       # e.g. unpacked mujoco-warp, newton
    python benchmarks/lint_throughput.py --profile DIR       # plus a cProfile breakdown of cold
    python benchmarks/lint_throughput.py --rounds 5          # plus 5 rounds of (ast.parse, -j1, -j2)

Prints files, lines, files/s and lines/s, and these ratios (goals from issues #27 and #28):
  cold / ast.parse            <= 2.5, stretch 2.0   (no cache, -j 1, fresh process)
  warm re-run / cold          <= 0.05  (same files, result cache filled by the cold run)
  -j 2 / -j 1                 <= 0.65  (cold, fresh processes, on 2 cores)
  peak memory, cold -j 1      <= 400 MiB

Each lint run is a fresh ``python`` process (astroid's module cache, used for inference,
would otherwise make later runs look faster); the time is that of ``run_lint`` inside it, and the process wall
time (interpreter start and imports included) is printed beside it. ``ast.parse`` is timed
twice, before and after the lint runs, and the faster is used, which favours the baseline
on a noisy machine.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
sys.path.insert(0, {root!r})
from pathlib import Path
from warp_ct.analyzer import batch
from warp_ct.analyzer import flows, memo  # noqa: F401 - imported where first used
from warp_ct.analyzer.rules import all_rules
from warp_ct.config import Config
all_rules()  # imported with the rest: a run without bytecode caches compiles them here, not in the lint
t1 = time.perf_counter()
config = Config(exclude=(), root=Path({first!r}))
cache = {cache!r}
profile = {profile!r}
if profile:
    import cProfile
    prof = cProfile.Profile()
    prof.enable()
start = time.perf_counter()
results = batch.run_lint({dirs!r}, config, jobs={jobs}, cache_dir=Path(cache) if cache else None)
elapsed = time.perf_counter() - start
if profile:
    prof.disable()
    prof.dump_stats(profile)
print(json.dumps({{
    "seconds": elapsed, "import_seconds": t1 - t0, "files": len(results),
    "findings": sum(len(r.findings) for r in results),
    "notes": sum(len(r.notes) for r in results),
    "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "trees": batch.last_stats.trees, "hits": batch.last_stats.cache_hits, "jobs": batch.last_stats.jobs,
}}))
"""


def warp_dir() -> str:
    spec = importlib.util.find_spec("warp")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("warp-lang is not installed: pass corpus directories")
    return list(spec.submodule_search_locations)[0]


def corpus(dirs: list[str]) -> list[tuple[str, str]]:
    out = []
    for d in dirs:
        for dirpath, dirnames, filenames in os.walk(d):
            dirnames[:] = sorted(x for x in dirnames if x != "__pycache__")
            for f in sorted(filenames):
                if f.endswith((".py", ".pyi")):
                    path = os.path.join(dirpath, f)
                    with open(path, "rb") as handle:
                        out.append((path, handle.read().decode("utf-8", "replace")))
    return out


def time_ast_parse(files: list[tuple[str, str]]) -> float:
    start = time.perf_counter()
    for path, text in files:
        try:
            ast.parse(text, path)
        except (SyntaxError, ValueError):
            pass
    return time.perf_counter() - start


def lint_once(dirs: list[str], jobs: int, cache: str | None, profile: str | None = None) -> dict:
    code = CHILD.format(root=str(ROOT), first=dirs[0], dirs=dirs, jobs=jobs, cache=cache, profile=profile)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"lint run failed:\n{proc.stderr}")
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    data["wall"] = wall
    return data


def breakdown(profile_path: str) -> None:
    import pstats

    stats = pstats.Stats(profile_path)
    wanted = {
        "read files": ("engine.py", "read_source"),
        "project summaries (regex)": ("project.py", "add"),
        "result cache get/put": ("cache.py", None),
        "gates (warp? noqa? triggers)": ("engine.py", "active_rules"),
        "ast.parse (linted files)": ("engine.py", "_parse"),
        "syntax check (other Warp files)": ("engine.py", "_check_syntax"),
        "rules (walk + checks + inference)": ("engine.py", "_run_rules"),
        "  of which inference (astroid)": ("context.py", "_run_inference"),
        "  of which astroid import hook (project modules)": ("project.py", "find_in_project"),
    }
    total = stats.total_tt
    print(f"\ncProfile breakdown of the cold -j1 run (profiled total {total:.1f} s; profiling inflates times):")
    for label, (filename, func) in wanted.items():
        cum = 0.0
        for (file, _line, name), (_cc, _nc, _tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
            if file.endswith(filename) and (func is None or name == func):
                if func is None:
                    cum += _tt
                else:
                    cum = max(cum, ct)
        print(f"  {label:50s} {cum:8.2f} s  {cum / total:6.1%}")
    print("\nTop 25 by cumulative time:")
    stats.sort_stats("cumulative").print_stats(25)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="*", help="corpus directories (default: the installed warp-lang package)")
    parser.add_argument("--jobs", type=int, default=2, help="worker count for the parallel run (default 2)")
    parser.add_argument("--profile", action="store_true", help="also profile a cold -j1 run and print a breakdown")
    parser.add_argument(
        "--rounds", type=int, default=0,
        help="also time N more (ast.parse, cold -j1, cold -jN) rounds back to back and print each ratio "
        "and the medians: on a noisy machine a round shares its conditions",
    )  # fmt: skip
    args = parser.parse_args(argv)
    dirs = [str(Path(d).resolve()) for d in (args.dirs or [warp_dir()])]

    files = corpus(dirs)
    lines = sum(text.count("\n") + 1 for _, text in files)
    size = sum(len(text) for _, text in files)
    print(f"corpus: {', '.join(dirs)}")
    print(f"files {len(files)}  lines {lines}  {size / 1e6:.1f} MB  python {sys.version.split()[0]}  cores {os.cpu_count()}")

    ast_a = time_ast_parse(files)
    tmp = tempfile.mkdtemp(prefix="warp-ct-bench-")
    try:
        cache = os.path.join(tmp, "cache")
        cold = lint_once(dirs, 1, cache)
        warm = lint_once(dirs, 1, cache)
        cold_j = lint_once(dirs, args.jobs, os.path.join(tmp, "cache-j"))
        nocache = lint_once(dirs, 1, None)
        profile_path = os.path.join(tmp, "cold.prof") if args.profile else None
        if profile_path:
            lint_once(dirs, 1, None, profile=profile_path)
        ast_b = time_ast_parse(files)
        ast_s = min(ast_a, ast_b)

        def row(label: str, data: dict) -> None:
            s = data["seconds"]
            print(
                f"  {label:28s} {s:8.2f} s  {len(files) / s:8.0f} files/s  {lines / s:9.0f} lines/s  "
                f"(process wall {data['wall']:.2f} s; peak {data['peak_mib']:.0f} MiB; trees {data['trees']}, cache hits {data['hits']}, "
                f"jobs {data['jobs']}, findings {data['findings']}, notes {data['notes']})"
            )

        print(f"\n  {'ast.parse (min of 2)':28s} {ast_s:8.2f} s  {len(files) / ast_s:8.0f} files/s  {lines / ast_s:9.0f} lines/s  (runs: {ast_a:.2f}, {ast_b:.2f})")
        row("lint cold -j1 (no cache)", nocache)
        row("lint cold -j1 (+cache write)", cold)
        row("lint warm -j1 (cache hits)", warm)
        row(f"lint cold -j{args.jobs} (+cache write)", cold_j)
        if warm["findings"] != cold["findings"] or cold_j["findings"] != cold["findings"]:
            print("  !! finding counts differ between runs")
        print("\nratios:")
        print(f"  cold (no cache) / ast.parse  {nocache['seconds'] / ast_s:6.2f}   (goal <= 2.5, stretch 2.0)")
        print(f"  cold (+cache)  / ast.parse   {cold['seconds'] / ast_s:6.2f}")
        print(f"  warm re-run / cold           {warm['seconds'] / cold['seconds']:6.3f}   (goal <= 0.05)")
        print(f"  peak memory, cold -j1        {nocache['peak_mib']:6.0f} MiB (goal <= 400)")
        print(f"  -j{args.jobs} / -j1 (cold)             {cold_j['seconds'] / cold['seconds']:6.2f}   (goal <= 0.65)")
        if args.rounds:
            parse_ratios, jobs_ratios = [], []
            for _ in range(args.rounds):
                parse_s = time_ast_parse(files)
                serial_s = lint_once(dirs, 1, None)["seconds"]
                parallel_s = lint_once(dirs, args.jobs, None)["seconds"]
                parse_ratios.append(serial_s / parse_s)
                jobs_ratios.append(parallel_s / serial_s)
                print(f"  round: ast.parse {parse_s:6.2f} s, cold -j1 {serial_s:6.2f} s, cold -j{args.jobs} {parallel_s:6.2f} s"
                      f" -> {serial_s / parse_s:5.2f}, {parallel_s / serial_s:5.2f}")  # fmt: skip
            print(f"  cold / ast.parse, median of {args.rounds} paired rounds: {statistics.median(parse_ratios):5.2f}   (goal <= 2.5)")
            print(f"  -j{args.jobs} / -j1 (no cache), median of {args.rounds} paired rounds: {statistics.median(jobs_ratios):5.2f}   (goal <= 0.65)")
        if profile_path:
            breakdown(profile_path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
