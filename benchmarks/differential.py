"""Differential check: what the probe measures versus what `warp-ct lint` predicts.

Runs a set of runnable Warp programs under `warp-ct probe measure` (isolated caches, the
bootstrap records why each build happened: the report's measured findings), lints each
program's sources with `warp-ct lint --output-format json`, and joins the two:

* agreements: a static finding and a measured finding of the same rule in the same file
  within +-2 lines (or, for a measured cause, at one of the user frames the bootstrap
  recorded for it: the helper's caller, the generic kernel's definition);
* other rule: the same place, but a static rule that explains the same rebuild under
  another name (a factory's kernel measured as added after load, WCT007, is the analyzer's
  per-call kernel, WCT003);
* static misses: measured findings without a static twin;
* contradicted claims: static WCT006/WCT007 findings on a file the run exercised (it built a
  module with kernels from that file) where every such module was built with one hash and
  the run measured no finding of that rule there.

Programs: every `tests/programs/*/fixture.toml` with `probe = true` (its `command`, run from
its folder), the runnable `examples/probe/*.py`, and a handful of warp-lang's own examples
that run on CPU without USD, windows, or torch (small sizes and step counts).

    python benchmarks/differential.py                  # everything (CPU: ~15-25 min)
    python benchmarks/differential.py --only wave --only clean
    python benchmarks/differential.py --json /tmp/differential.json --timeout 180

Temp directories (reports, the examples' working directory) are removed on exit; the probe
removes its own caches.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
LINE_SLACK = 2
# Static claims the run can contradict: a rebuild of the module with a new hash.
REBUILD_RULES = ("WCT006", "WCT007")
# A measured rule and the static rules that explain the same rebuild at the same place: the
# bootstrap sees a factory's kernel added to a loaded module (WCT007); the analyzer names the
# factory that re-runs (WCT003, at the kernel's def).
RELATED_RULES = {"WCT007": ("WCT003",)}

# warp-lang examples that run on CPU, headless, without USD/pyglet/torch, in well under a minute
# of cold compile on one core (sizes and step counts made small; `--stage-path None` = no USD).
WARP_EXAMPLES: list[tuple[str, list[str]]] = [
    ("warp.examples.core.example_wave", ["--device", "cpu", "--stage-path", "None", "--num-frames", "3"]),
    ("warp.examples.core.example_fluid", ["--device", "cpu", "--num-frames", "2", "--headless"]),
    ("warp.examples.core.example_sph", ["--device", "cpu", "--stage-path", "None", "--num-frames", "2"]),
    ("warp.examples.core.example_dem", ["--device", "cpu", "--stage-path", "None", "--num-frames", "2"]),
    ("warp.examples.fem.example_convection_diffusion",
     ["--device", "cpu", "--headless", "--quiet", "--resolution", "8", "--num-frames", "2"]),
    ("warp.examples.fem.example_diffusion", ["--device", "cpu", "--headless", "--quiet", "--resolution", "8"]),
    ("warp.examples.fem.example_burgers", ["--device", "cpu", "--headless", "--quiet", "--resolution", "8", "--num-frames", "2"]),
    ("warp.examples.tile.example_tile_matmul", ["--device", "cpu"]),
]


@dataclass
class Program:
    name: str
    kind: str  # fixture | example | warp-example
    argv: list[str]
    cwd: Path | None  # None: a temp dir (warp-lang's examples may write files)
    lint_paths: list[Path]


@dataclass
class Result:
    program: Program
    ok: bool = False
    error: str = ""
    seconds: float = 0.0
    measured: list[dict[str, Any]] = field(default_factory=list)
    static: list[dict[str, Any]] = field(default_factory=list)
    agreements: list[tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    related: list[tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=list)  # same place, related rule
    misses: list[dict[str, Any]] = field(default_factory=list)
    misses_outside: list[dict[str, Any]] = field(default_factory=list)  # measured outside the linted files
    contradicted: list[dict[str, Any]] = field(default_factory=list)

    def row(self) -> dict[str, Any]:
        return {
            "measured": len(self.measured), "static": len(self.static), "agreements": len(self.agreements),
            "other_rule": len(self.related), "static_misses": len(self.misses) + len(self.misses_outside), "misses_outside_linted": len(self.misses_outside),
            "contradicted": len(self.contradicted),
        }  # fmt: skip


def discover() -> list[Program]:
    programs: list[Program] = []
    for toml in sorted((REPO / "tests" / "programs").glob("*/fixture.toml")):
        data = tomllib.loads(toml.read_text(encoding="utf-8"))
        if not data.get("probe", False):
            continue
        argv = [sys.executable if a == "python" else a for a in data["command"]]
        programs.append(Program(toml.parent.name, "fixture", argv, toml.parent, [toml.parent]))
    for script in sorted((REPO / "examples" / "probe").glob("*.py")):
        if "__main__" in script.read_text(encoding="utf-8"):
            programs.append(Program(f"examples/{script.stem}", "example", [sys.executable, str(script)], script.parent, [script]))
    try:
        import importlib.util

        for module, args in WARP_EXAMPLES:
            spec = importlib.util.find_spec(module)
            if spec is None or spec.origin is None:
                continue
            name = "warp:" + module.rsplit(".", 1)[-1].removeprefix("example_")
            programs.append(Program(name, "warp-example", [sys.executable, "-m", module, *args], None, [Path(spec.origin)]))
    except ImportError:  # warp-lang not installed: fixtures and examples only
        pass
    return programs


def _cli(args: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    return subprocess.run([sys.executable, "-m", "warp_ct", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)  # fmt: skip


def _abs(path: str, base: Path) -> str:
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(base, path))


def _line(f: dict[str, Any]) -> int:
    return int(f["location"]["line"])


def _places(report: dict[str, Any], finding: dict[str, Any], cwd: Path) -> set[tuple[str, int]]:
    """Where a static finding may sit for this measured one: the finding's place and its
    ``also_at`` places, the user frames the bootstrap recorded for its cause, and a
    generic/added kernel's definition."""
    path, line = _abs(finding["path"], cwd), _line(finding)
    also = {(_abs(a["path"], cwd), int(a["line"])) for a in finding.get("also_at") or ()}
    places = {(path, line)} | also
    module_name = (finding.get("evidence") or [{}])[0].get("module")
    for module in report.get("modules", []):
        if module.get("name") != module_name:
            continue
        kernels = {k.get("key"): k for k in module.get("kernels", [])}
        for cause in module.get("causes", []):
            frames = [(os.path.normpath(fr["file"]), int(fr["line"])) for fr in cause.get("frames", []) if fr.get("file")]
            if (path, line) not in frames and not also & set(frames):
                continue  # another cause of the module (the finding sits on one of its frames)
            places.update(frames)
            key = (cause.get("detail") or {}).get("kernel") or (cause.get("detail") or {}).get("key")
            kernel = kernels.get(key)
            if kernel and kernel.get("file") and kernel.get("line"):
                places.add((os.path.normpath(kernel["file"]), int(kernel["line"])))
    return places


def compare(result: Result, report: dict[str, Any], lint: dict[str, Any], run_cwd: Path, lint_cwd: Path) -> None:
    program = result.program
    result.measured = list(report.get("findings", []))
    result.static = [f for f in lint.get("findings", [])]
    static_abs = [(f, _abs(f["path"], lint_cwd), _line(f)) for f in result.static]
    linted_files = {p for _f, p, _l in static_abs}
    roots = [str(p.resolve()) for p in program.lint_paths]

    def linted(path: str) -> bool:
        return path in linted_files or any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)

    matched_static: set[int] = set()
    for m in result.measured:
        places = _places(report, m, run_cwd)
        twin = related = None
        for codes in ((m["code"],), RELATED_RULES.get(m["code"], ())):
            candidates = []  # (already matched, distance, index): the nearest free static twin
            for i, (s, spath, sline) in enumerate(static_abs):
                distances = [abs(sline - line) for p, line in places if s["code"] in codes and spath == p]
                if distances and min(distances) <= LINE_SLACK:
                    candidates.append((i in matched_static, min(distances), i))
            if candidates:
                if codes == (m["code"],):
                    twin = min(candidates)[2]
                else:
                    related = min(candidates)[2]
                break
        if twin is not None:
            matched_static.add(twin)
            result.agreements.append((m, static_abs[twin][0]))
        elif related is not None:
            matched_static.add(related)
            result.related.append((m, static_abs[related][0]))
        elif linted(_abs(m["path"], run_cwd)):
            result.misses.append(m)
        else:
            result.misses_outside.append(m)
    # Files the run exercised: each module's kernel files, with whether that module churned.
    exercised: dict[str, bool] = {}  # file -> some module with kernels there had >1 hash
    for module in report.get("modules", []):
        churn = len(module.get("hashes", [])) > 1
        for kernel in module.get("kernels", []):
            if kernel.get("file"):
                file = os.path.normpath(kernel["file"])
                exercised[file] = exercised.get(file, False) or churn
    measured_rules = {(m["code"], p) for m in result.measured for p, _l in _places(report, m, run_cwd)}
    for i, (s, spath, _sline) in enumerate(static_abs):
        if i in matched_static or s["code"] not in REBUILD_RULES or spath not in exercised:
            continue
        if not exercised[spath] and (s["code"], spath) not in measured_rules:
            result.contradicted.append(s)


def run_program(program: Program, samples: int, timeout: float, tmp: Path) -> Result:
    result = Result(program)
    start = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="run-", dir=tmp))
    run_cwd = program.cwd or work
    report_path = work / "report.json"
    try:
        probe = _cli(["probe", "measure", "--samples", str(samples), "--quiet", "--timeout", str(timeout),
                      "--json", str(report_path), "--cwd", str(run_cwd), "--", *program.argv],
                     cwd=run_cwd, timeout=timeout * 2 * samples + 120)  # fmt: skip
        if probe.returncode != 0 or not report_path.is_file():
            result.error = f"probe exit {probe.returncode}: {(probe.stderr or probe.stdout).strip()[-400:]}"
            return result
        report = json.loads(report_path.read_text(encoding="utf-8"))
        lint_cwd = program.cwd or program.lint_paths[0].parent
        lint = _cli(["lint", "--output-format", "json", "--exit-zero", "--no-cache", "-j", "1",
                     *[str(p) for p in program.lint_paths]], cwd=lint_cwd, timeout=600)  # fmt: skip
        if lint.returncode != 0:
            result.error = f"lint exit {lint.returncode}: {lint.stderr.strip()[-400:]}"
            return result
        compare(result, report, json.loads(lint.stdout), Path(report.get("cwd") or run_cwd), lint_cwd)
        result.ok = True
    except subprocess.TimeoutExpired as exc:
        result.error = f"timed out after {exc.timeout:.0f} s"
    except (OSError, ValueError, KeyError) as exc:
        result.error = f"{type(exc).__name__}: {exc}"
    finally:
        result.seconds = time.perf_counter() - start
        shutil.rmtree(work, ignore_errors=True)
    return result


def _short(f: dict[str, Any], width: int = 150) -> str:
    text = f"{f['code']} {f['path']}:{_line(f)}: {f['message']}"
    return text if len(text) <= width else text[: width - 1] + "…"


COLUMNS = ("measured", "static", "agreements", "other_rule", "static_misses", "contradicted")


def print_table(results: list[Result], details: bool) -> dict[str, int]:
    width = max([len(r.program.name) for r in results] + [7])
    head = f"{'program':<{width}}  " + "  ".join(f"{c:>13}" for c in COLUMNS) + "  seconds"
    print(head)
    print("-" * len(head))
    totals = dict.fromkeys(COLUMNS, 0)
    totals["misses_outside_linted"] = 0
    for r in results:
        if not r.ok:
            print(f"{r.program.name:<{width}}  error: {r.error}")
            continue
        row = r.row()
        for key in totals:
            totals[key] += row[key]
        print(f"{r.program.name:<{width}}  " + "  ".join(f"{row[c]:>13}" for c in COLUMNS) + f"  {r.seconds:7.1f}")
        if details:
            for m, s in r.agreements:
                print(f"    = {_short(m)}\n      static {s['path']}:{_line(s)}")
            for m, s in r.related:
                print(f"    ~ {_short(m)}\n      static {s['code']} {s['path']}:{_line(s)}")
            for m in r.misses:
                print(f"    ! miss {_short(m)}")
            for m in r.misses_outside:
                print(f"    ! miss (outside the linted files) {_short(m)}")
            for s in r.contradicted:
                print(f"    ? contradicted {_short(s)}")
    print("-" * len(head))
    print(f"{'total':<{width}}  " + "  ".join(f"{totals[c]:>13}" for c in COLUMNS))
    ok = sum(r.ok for r in results)
    print(f"{ok} of {len(results)} programs measured; {totals['misses_outside_linted']} of the static misses "
          "are outside the linted files (installed packages)")  # fmt: skip
    return totals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="run programs whose name contains NAME (repeatable)")  # fmt: skip
    parser.add_argument("--samples", type=int, default=1, help="probe samples per program (default 1)")
    parser.add_argument("--json", metavar="OUT", help="write per-program results and totals as JSON")
    parser.add_argument("--timeout", type=float, default=240.0, help="seconds allowed per probe run (cold or warm)")
    parser.add_argument("--list", action="store_true", help="list the programs and exit")
    parser.add_argument("--quiet", action="store_true", help="no per-finding details")
    args = parser.parse_args(argv)
    programs = discover()
    if args.only:
        programs = [p for p in programs if any(o in p.name for o in args.only)]
    if args.list or not programs:
        for p in programs:
            print(f"{p.name:<40} {p.kind:<13} {' '.join(p.argv[1:])}")
        return 0 if programs else 2
    results = []
    with tempfile.TemporaryDirectory(prefix="warp-ct-differential-") as tmp:
        for i, program in enumerate(programs, 1):
            print(f"[{i}/{len(programs)}] {program.name} ...", file=sys.stderr, flush=True)
            results.append(run_program(program, args.samples, args.timeout, Path(tmp)))
    totals = print_table(results, details=not args.quiet)
    if args.json:
        out = {
            "totals": totals,
            "programs": [
                {"name": r.program.name, "kind": r.program.kind, "command": r.program.argv[1:], "ok": r.ok, "error": r.error,
                 "seconds": round(r.seconds, 1), **(r.row() if r.ok else {}),
                 "details": {
                     "agreements": [{"measured": m, "static": s} for m, s in r.agreements],
                     "other_rule": [{"measured": m, "static": s} for m, s in r.related],
                     "static_misses": r.misses, "static_misses_outside_linted": r.misses_outside,
                     "contradicted": r.contradicted}}  # fmt: skip
                for r in results
            ],
        }
        Path(args.json).write_text(json.dumps(out, indent=2), encoding="utf-8")
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
