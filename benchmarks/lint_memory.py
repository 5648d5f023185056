#!/usr/bin/env python3
"""Peak memory of linting: a generated 50,000-line Warp file, and a full corpus.

    python benchmarks/lint_memory.py                 # 50k-line file + installed warp-lang
    python benchmarks/lint_memory.py DIR [DIR ...]   # other corpora
    python benchmarks/lint_memory.py --lines 100000 --no-corpus

Each measurement runs in a fresh process and reports its peak RSS (``ru_maxrss``) beside
the peak RSS of the same process after imports only (the baseline in the same run), so
the ratio is what linting itself adds.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.perf.generate import warp_like_source  # noqa: E402

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
from pathlib import Path
from warp_ct.analyzer import batch
from warp_ct.analyzer.engine import Linter
from warp_ct.config import Config
Linter(Config())  # astroid bootstrap + warp stub: part of the baseline
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
results = batch.run_lint({paths!r}, Config(exclude=(), root=Path({root_dir!r})), jobs=1, cache_dir=None)
elapsed = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"base_kib": base, "peak_kib": peak, "seconds": elapsed, "files": len(results),
    "findings": sum(len(r.findings) for r in results), "notes": [n for r in results for n in r.notes][:5]}}))
"""


def measure(paths: list[str]) -> dict:
    code = CHILD.format(root=str(ROOT), paths=paths, root_dir=str(Path(paths[0]).parent))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"lint run failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def report(label: str, data: dict, size_mb: float) -> None:
    base, peak = data["base_kib"] / 1024, data["peak_kib"] / 1024
    print(
        f"{label}: {data['files']} files, {size_mb:.1f} MB of source, {data['seconds']:.1f} s, "
        f"{data['findings']} findings\n"
        f"  peak RSS {peak:.0f} MiB; after imports {base:.0f} MiB; lint adds {peak - base:.0f} MiB "
        f"({(peak - base) / max(size_mb, 1e-9):.1f} MiB per MB of source); peak/baseline {peak / base:.2f}"
    )
    if data["notes"]:
        print(f"  notes: {data['notes']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="*", help="corpus directories (default: the installed warp-lang package)")
    parser.add_argument("--lines", type=int, default=50_000, help="size of the generated file")
    parser.add_argument("--no-corpus", action="store_true", help="only the generated file")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="warp-ct-mem-") as tmp:
        big = Path(tmp, "big_generated.py")
        text = warp_like_source(args.lines)
        big.write_text(text, encoding="utf-8")
        start = time.perf_counter()
        data = measure([str(big)])
        print(f"(generated {text.count(chr(10))} lines in {time.perf_counter() - start:.1f} s total)")
        report(f"{text.count(chr(10))}-line generated file", data, len(text) / 1e6)

    if not args.no_corpus:
        dirs = args.dirs
        if not dirs:
            spec = importlib.util.find_spec("warp")
            if spec is None or not spec.submodule_search_locations:
                print("warp-lang not installed: no corpus measured")
                return 0
            dirs = [list(spec.submodule_search_locations)[0]]
        size = sum(p.stat().st_size for d in dirs for p in Path(d).rglob("*.py"))
        report(f"corpus {', '.join(dirs)}", measure([str(Path(d).resolve()) for d in dirs]), size / 1e6)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
