#!/usr/bin/env python3
"""Score `warp-ct lint` against hand-made labels on third-party Warp packages.

Run by hand (not a test). Downloads nothing: fetch and unpack the packages first
(see README.md beside this file), then:

    python benchmarks/thirdparty/score.py --src /tmp/thirdparty/src

Each package listed in labels.toml is linted from inside its unpacked directory
(`<src>/<dir>`), with the CLI of the warp_ct that `python -m warp_ct` imports
(`--no-cache`, so results never come from an older analyzer), and every finding is
matched to a label by (path, code, line within ±2 of `line` or of any `alt_lines`; an
alt line may name another file as "path:line", for a cause reported at its launch site).

Per package and overall it prints:
  TP      findings on a "true" label (a real antipattern reported where it is)
  FP      findings on a "false" label (a place the analyzer must stay silent)
  unjud.  findings that match no label: listed so that a human can judge them
  ok      info findings on a "false" label marked allow_info (e.g. WCT010 in a library whose
          callers may differentiate: "say so, at most as info"): neither TP nor FP
  miss    "true" labels that no finding matches
  precision = TP / (TP + FP)   (unjudged findings are left out, and listed)
  recall    = TP / (number of "true" labels)

`--severity warning` scores only warnings/errors (info findings then count neither as
TP nor FP; a "true" label still counts as missed unless a warning matches it) — this is
the CI-relevant view. `--only-decidable` drops labels marked `scope = "cross-package"`
(antipatterns whose proof lies in code outside the linted package). `--json FILE` writes
the per-finding verdicts for other tools.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
TOLERANCE = 2


@dataclass
class Label:
    path: str
    line: int
    code: str
    verdict: str  # "true" | "false"
    severity: str
    why: str
    alt_lines: list = field(default_factory=list)  # ints (same path) or "path:line" strings
    scope: str = "package"
    gpu_only: bool = False
    measured: str = ""
    allow_info: bool = False  # on a "false" label: an info finding here is acceptable (counted "ok")

    def places(self) -> list[tuple[str, int]]:
        out = [(self.path, self.line)]
        for alt in self.alt_lines:
            if isinstance(alt, int):
                out.append((self.path, alt))
            else:
                p, _, ln = str(alt).rpartition(":")
                out.append((p, int(ln)))
        return out

    def matches(self, path: str, code: str, line: int) -> bool:
        if code != self.code:
            return False
        return any(p == path and abs(line - ln) <= TOLERANCE for p, ln in self.places())


@dataclass
class Package:
    name: str
    version: str
    pip: str
    dir: str
    kind: str
    labels: list[Label]


def load_labels(path: Path) -> list[Package]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out = []
    for p in data["package"]:
        labels = []
        for lab in p.get("labels", []):
            if lab["verdict"] not in ("true", "false"):
                raise SystemExit(f"{p['name']}: bad verdict {lab['verdict']!r} in {lab}")
            labels.append(Label(**lab))
        out.append(Package(p["name"], p["version"], p["pip"], p["dir"], p.get("kind", ""), labels))
    return out


def lint(pkg_dir: Path, extra: list[str], warp_ct_root: Path) -> list[dict]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(warp_ct_root) + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", "warp_ct", "lint", "--output-format", "json", "--exit-zero",
           "--no-cache", *extra, "."]
    proc = subprocess.run(cmd, cwd=pkg_dir, env=env, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"lint failed in {pkg_dir} (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    report = json.loads(proc.stdout)
    findings = report["findings"] if isinstance(report, dict) else report
    for f in findings:
        f["path"] = Path(f["path"]).as_posix().removeprefix("./")
    return findings


def ratio(num: int, den: int) -> str:
    return f"{num / den:.2f}" if den else "  - "


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", required=True, help="folder holding the unpacked packages (<src>/<dir>)")
    ap.add_argument("--labels", default=str(HERE / "labels.toml"))
    ap.add_argument("--package", action="append", help="score only these package names")
    ap.add_argument("--severity", choices=("all", "warning"), default="all",
                    help="'warning': score warnings/errors only (info findings ignored)")
    ap.add_argument("--only-decidable", action="store_true",
                    help="leave out labels whose evidence lies outside the package (scope=cross-package)")
    ap.add_argument("--lint-arg", action="append", default=[], help="extra argument for warp-ct lint")
    ap.add_argument("--json", help="write per-finding verdicts to this file")
    ap.add_argument("--warp-ct", default=str(REPO), metavar="DIR",
                    help="folder holding the warp_ct package to score (default: this checkout); e.g. an "
                         "older commit exported with `git archive COMMIT warp_ct | tar -x -C DIR`")
    ap.add_argument("-v", "--verbose", action="store_true", help="list TPs, FPs and misses too")
    args = ap.parse_args()

    src = Path(args.src)
    print(f"warp_ct from {Path(args.warp_ct).resolve()}")
    packages = load_labels(Path(args.labels))
    if args.package:
        packages = [p for p in packages if p.name in args.package]

    rows = []
    dump = []
    by_rule: dict[str, dict[str, int]] = {}

    def bump(code: str, key: str, n: int = 1) -> None:
        by_rule.setdefault(code, {"tp": 0, "fp": 0, "ok": 0, "unj": 0, "miss": 0, "true": 0, "hit": 0})[key] += n
    totals = dict(tp=0, fp=0, unj=0, miss=0, true=0)
    for pkg in packages:
        pdir = src / pkg.dir
        if not pdir.is_dir():
            print(f"!! {pkg.name}: {pdir} not found (see README.md for the pip download command)")
            continue
        labels = [lb for lb in pkg.labels if not (args.only_decidable and lb.scope == "cross-package")]
        for lb in labels:
            if not (pdir / lb.path).is_file():
                print(f"!! {pkg.name}: label {lb.path}:{lb.line} names no file of this package (misplaced label?)")
        findings = lint(pdir, args.lint_arg, Path(args.warp_ct).resolve())
        if args.severity == "warning":
            findings = [f for f in findings if f.get("severity") in ("warning", "error")]
        hit: set[int] = set()
        tp, fp, unj, ok = [], [], [], []
        for f in findings:
            line = f["location"]["line"]
            match = next((i for i, lb in enumerate(labels) if lb.matches(f["path"], f["code"], line)), None)
            rec = {"package": pkg.name, "path": f["path"], "line": line, "code": f["code"],
                   "severity": f.get("severity"), "message": f.get("message", "")}
            if match is None:
                unj.append(f)
                rec["verdict"] = "unjudged"
            else:
                lb = labels[match]
                rec["verdict"] = lb.verdict
                rec["why"] = lb.why
                if lb.verdict == "true":
                    tp.append(f)
                    hit.add(match)
                elif lb.allow_info and f.get("severity") == "info":
                    ok.append(f)
                    rec["verdict"] = "ok-info"
                else:
                    fp.append(f)
            dump.append(rec)
        trues = [i for i, lb in enumerate(labels) if lb.verdict == "true"]
        misses = [labels[i] for i in trues if i not in hit]
        for f in tp:
            bump(f["code"], "tp")
        for f in fp:
            bump(f["code"], "fp")
        for f in ok:
            bump(f["code"], "ok")
        for f in unj:
            bump(f["code"], "unj")
        for i in trues:
            bump(labels[i].code, "true")
            bump(labels[i].code, "hit" if i in hit else "miss")
        n_tp_labels = len([i for i in trues if i in hit])
        rows.append((pkg.name, pkg.version, len(findings), len(tp), len(fp), len(ok), len(unj), len(misses),
                     len(trues), n_tp_labels))
        totals["tp"] += len(tp)
        totals["fp"] += len(fp)
        totals["unj"] += len(unj)
        totals["ok"] = totals.get("ok", 0) + len(ok)
        totals["miss"] += len(misses)
        totals["true"] += len(trues)
        totals.setdefault("tp_labels", 0)
        totals["tp_labels"] += n_tp_labels

        print(f"== {pkg.name} {pkg.version} ({pkg.kind})")
        for f in unj:
            print(f"   UNJUDGED {f['code']} {f.get('severity', '')} {f['path']}:{f['location']['line']}  "
                  f"{f.get('message', '')[:160]}")
        if args.verbose:
            for f in tp:
                print(f"   TP       {f['code']} {f['path']}:{f['location']['line']}")
            for f in fp:
                lb = next(lb for lb in labels if lb.matches(f["path"], f["code"], f["location"]["line"]))
                print(f"   FP       {f['code']} {f['path']}:{f['location']['line']}  ({lb.why[:120]})")
            for f in ok:
                print(f"   OK-INFO  {f['code']} {f['path']}:{f['location']['line']}")
            for lb in misses:
                gpu = " [GPU-only]" if lb.gpu_only else ""
                print(f"   MISS     {lb.code} {lb.path}:{lb.line}{gpu}  ({lb.why[:120]})")

    print()
    hdr = f"{'package':<24} {'version':<10} {'found':>5} {'TP':>4} {'FP':>4} {'ok':>3} {'unjud':>5} {'miss':>4} " \
          f"{'precision':>9} {'recall':>6}"
    print(hdr)
    print("-" * len(hdr))
    for name, ver, nf, tp, fp, ok, unj, miss, ntrue, ntpl in rows:
        print(f"{name:<24} {ver:<10} {nf:>5} {tp:>4} {fp:>4} {ok:>3} {unj:>5} {miss:>4} "
              f"{ratio(tp, tp + fp):>9} {ratio(ntpl, ntrue):>6}")
    print("-" * len(hdr))
    t = totals
    print(f"{'overall':<24} {'':<10} {sum(r[2] for r in rows):>5} {t['tp']:>4} {t['fp']:>4} {t.get('ok', 0):>3} {t['unj']:>5} "
          f"{t['miss']:>4} {ratio(t['tp'], t['tp'] + t['fp']):>9} {ratio(t.get('tp_labels', 0), t['true']):>6}")
    print(f"\nrecall counts labels: {t.get('tp_labels', 0)} of {t['true']} true labels reported; "
          f"precision counts findings: {t['tp']} true of {t['tp'] + t['fp']} judged "
          f"({t['unj']} unjudged left out)")
    print(f"\n{'rule':<8} {'TP':>4} {'FP':>4} {'ok':>3} {'unjud':>5} {'labels':>6} {'hit':>4} {'miss':>4} "
          f"{'precision':>9} {'recall':>6}")
    for code in sorted(by_rule):
        r = by_rule[code]
        print(f"{code:<8} {r['tp']:>4} {r['fp']:>4} {r['ok']:>3} {r['unj']:>5} {r['true']:>6} {r['hit']:>4} "
              f"{r['miss']:>4} {ratio(r['tp'], r['tp'] + r['fp']):>9} {ratio(r['hit'], r['true']):>6}")
    if args.json:
        Path(args.json).write_text(json.dumps(dump, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
