"""Probe overhead: cold wall under the probe vs the same isolated cold run without it.

Both variants get a fresh private WARP_CACHE_PATH / CUDA_CACHE_PATH / TMPDIR per run (the
probe's own isolation); the only difference is the injected bootstrap. Runs alternate
(probe, bare, probe, bare, ...) so machine drift hits both alike; the figure is the ratio
of medians. Goal: <= 1.05.

    python benchmarks/probe_overhead.py [--pairs N] [-- CMD ...]

Default command: ``python examples/probe/clean.py 2000`` (one module, 4,000 launches, so
both the load hook and the launch hook are exercised).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from warp_ct.probe.isolation import Workspace, child_environment, run_child  # noqa: E402
from warp_ct.probe.records import read_records_dir  # noqa: E402


def cold_wall(workspace: Workspace, index: int, argv: list[str], probed: bool) -> float:
    dirs = workspace.new_sample(index)
    records = dirs.records_for("cold") if probed else None
    env = child_environment(os.environ, dirs, bootstrap_dir=workspace.bootstrap_dir if probed else None, records_dir=records)
    result = run_child(argv, cwd=str(ROOT), env=env, output_dir=dirs.root, timeout=600, cancel=None)
    if result.exit_code != 0:
        raise SystemExit(f"command failed ({result.exit_code}): {result.stderr_tail}")
    if probed and records is not None and not read_records_dir(records, result.start_epoch).loads:
        raise SystemExit("the probe recorded no module load: the bootstrap did not run")
    return result.wall_s


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    argv = [a for a in args.command if a != "--"] or [sys.executable, str(ROOT / "examples/probe/clean.py"), "2000"]

    probe_walls: list[float] = []
    bare_walls: list[float] = []
    with Workspace() as workspace:
        for pair in range(args.pairs):
            order = (True, False) if pair % 2 == 0 else (False, True)
            for probed in order:
                wall = cold_wall(workspace, 2 * pair + int(probed), argv, probed)
                (probe_walls if probed else bare_walls).append(wall)
            print(f"pair {pair + 1}/{args.pairs}: probe {probe_walls[-1]:.3f} s, bare {bare_walls[-1]:.3f} s", flush=True)
    probe, bare = statistics.median(probe_walls), statistics.median(bare_walls)
    ratio = probe / bare
    print(f"command: {' '.join(argv)}")
    print(f"cold wall median: probe {probe:.3f} s, bare {bare:.3f} s -> ratio {ratio:.3f} (goal <= 1.05)")
    return 0 if ratio <= 1.05 else 1


if __name__ == "__main__":
    raise SystemExit(main())
