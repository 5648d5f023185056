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

With ``--warp-examples`` it runs instead Warp's own examples (``warp/examples/{core,optim,
fem,tile}``) that run on the CPU without a GPU, a USD stage or a viewer, each *copied out of the
package* into a folder of its own (so its code is user code, as a user's script would be):
``warp-ct probe measure`` on the copy, then ``warp-ct confirm --format json`` (which lints the
copy and joins), and counts per example: measured findings at user lines (and those outside
the copy: in site-packages, ``<string>`` or elsewhere, which must be 0), agreements (measured
findings with a static twin: same rule or a twin rule, same place or kernel), static misses
(measured in the copy, no static twin), and contradicted claims (static findings on code the run
exercised whose predicted cost the run did not show: confirm's ``not-observed``). Examples that
cannot run here are listed with the reason (``--list``).

    python benchmarks/differential.py                  # everything (CPU: ~15-25 min)
    python benchmarks/differential.py --warp-examples --json /tmp/warp-examples.json   # ~1 h on 2 cores
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
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

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
    """1-based line of a finding: lint JSON and measured findings (``location``), or a
    finding as ``confirm --format json`` writes it (``range``, 0-based)."""
    if "location" in f:
        return int(f["location"]["line"])
    return int(f["range"]["start"]["line"]) + 1


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


@contextmanager
def _recording(result: Any) -> Iterator[None]:
    """Times a run into ``result.seconds``; a timeout, an I/O error or a malformed report
    becomes ``result.error`` (the other programs still run)."""
    start = time.perf_counter()
    try:
        yield
    except subprocess.TimeoutExpired as exc:
        result.error = f"timed out after {exc.timeout:.0f} s"
    except (OSError, ValueError, KeyError) as exc:
        result.error = f"{type(exc).__name__}: {exc}"
    finally:
        result.seconds = time.perf_counter() - start


def _measured(argv: list[str], samples: int, timeout: float, report_path: Path, cwd: Path, result: Any,
              tail: int) -> dict[str, Any] | None:  # fmt: skip
    """The probe's JSON report of ``argv`` run in ``cwd``; None (and ``result.error``, the
    last ``tail`` characters of its output) when the probe failed."""
    probe = _cli(["probe", "measure", "--samples", str(samples), "--quiet", "--timeout", str(timeout),
                  "--json", str(report_path), "--cwd", str(cwd), "--", *argv],
                 cwd=cwd, timeout=timeout * 2 * samples + 120)  # fmt: skip
    if probe.returncode != 0 or not report_path.is_file():
        result.error = f"probe exit {probe.returncode}: {(probe.stderr or probe.stdout).strip()[-tail:]}"
        return None
    return json.loads(report_path.read_text(encoding="utf-8"))


def run_program(program: Program, samples: int, timeout: float, tmp: Path) -> Result:
    result = Result(program)
    work = Path(tempfile.mkdtemp(prefix="run-", dir=tmp))
    run_cwd = program.cwd or work
    try:
        with _recording(result):
            report = _measured(program.argv, samples, timeout, work / "report.json", run_cwd, result, 400)
            if report is None:
                return result
            lint_cwd = program.cwd or program.lint_paths[0].parent
            lint = _cli(["lint", "--output-format", "json", "--exit-zero", "--no-cache", "-j", "1",
                         *[str(p) for p in program.lint_paths]], cwd=lint_cwd, timeout=600)  # fmt: skip
            if lint.returncode != 0:
                result.error = f"lint exit {lint.returncode}: {lint.stderr.strip()[-400:]}"
                return result
            compare(result, report, json.loads(lint.stdout), Path(report.get("cwd") or run_cwd), lint_cwd)
            result.ok = True
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return result


# --warp-examples: Warp's own examples copied out of the package. Arguments keep each run short
# on one CPU core (small resolutions, few frames/iterations, no window, no USD stage).
_CPU = ["--device", "cpu"]
COPIED_EXAMPLES: list[tuple[str, str, list[str]]] = [
    ("core", "example_wave", [*_CPU, "--stage-path", "None", "--num-frames", "3"]),
    ("core", "example_fluid", [*_CPU, "--headless", "--num-frames", "2"]),
    ("core", "example_sph", [*_CPU, "--stage-path", "None", "--num-frames", "2"]),
    ("core", "example_dem", [*_CPU, "--stage-path", "None", "--num-frames", "2"]),
    ("core", "example_fdtd_3d", [*_CPU, "--headless", "--resolution", "48", "--num-steps", "4", "--steps-per-frame", "2"]),
    ("core", "example_fft_poisson_navier_stokes_2d", [*_CPU, "--headless", "--num-steps", "2"]),
    ("core", "example_graph_capture", [*_CPU, "--headless", "--num-frames", "2"]),
    ("core", "example_nvdb", [*_CPU, "--stage-path", "None", "--num-frames", "2"]),
    ("core", "example_raymarch", [*_CPU, "--headless", "--width", "64", "--height", "32"]),
    ("core", "example_sample_mesh", [*_CPU, "--stage-path", "None", "--num-frames", "2"]),
    ("optim", "example_fluid_checkpoint", [*_CPU, "--headless", "--num-frames", "4", "--segment-size", "2", "--train-iters", "1"]),
    ("optim", "example_fluid_checkpoint_custom_backward",
     [*_CPU, "--headless", "--num-frames", "4", "--segment-size", "2", "--train-iters", "1"]),
    ("optim", "example_navier_stokes_perturbation",
     [*_CPU, "--headless", "--spin-up-steps", "2", "--lead-steps", "2", "--train-iters", "1"]),
    ("optim", "example_particle_repulsion", [*_CPU, "--headless", "--num-frames", "2"]),
    ("fem", "example_adaptive_grid", [*_CPU, "--headless", "--quiet", "--resolution", "8", "--level-count", "2"]),
    ("fem", "example_apic_fluid", [*_CPU, "--quiet", "--stage-path", "None", "--num-frames", "2", "--voxel-size", "0.25"]),
    ("fem", "example_burgers", [*_CPU, "--headless", "--quiet", "--resolution", "8", "--num-frames", "2"]),
    ("fem", "example_convection_diffusion", [*_CPU, "--headless", "--quiet", "--resolution", "8", "--num-frames", "2"]),
    ("fem", "example_convection_diffusion_dg", [*_CPU, "--headless", "--quiet", "--resolution", "8", "--num-frames", "2"]),
    ("fem", "example_darcy_ls_optimization", [*_CPU, "--headless", "--resolution", "8", "--num-iters", "2"]),
    ("fem", "example_deformed_geometry", [*_CPU, "--headless", "--quiet", "--resolution", "8"]),
    ("fem", "example_diffusion", [*_CPU, "--headless", "--quiet", "--resolution", "8"]),
    ("fem", "example_diffusion_3d", [*_CPU, "--headless", "--quiet", "--resolution", "4"]),
    ("fem", "example_distortion_energy", [*_CPU, "--headless", "--quiet", "--resolution", "8"]),
    ("fem", "example_elastic_shape_optimization", [*_CPU, "--headless", "--resolution", "8", "--num-iters", "2"]),
    ("fem", "example_kelvin_helmholtz", [*_CPU, "--headless", "--quiet", "--resolution", "8", "--num-frames", "2"]),
    ("fem", "example_magnetostatics", [*_CPU, "--headless", "--quiet", "--resolution", "8"]),
    ("fem", "example_mixed_elasticity", [*_CPU, "--headless", "--quiet", "--resolution", "8"]),
    ("fem", "example_navier_stokes", [*_CPU, "--headless", "--quiet", "--resolution", "8", "--num-frames", "2"]),
    ("fem", "example_nonconforming_contact", [*_CPU, "--headless", "--resolution", "4", "--num-steps", "2"]),
    ("fem", "example_shallow_water", [*_CPU, "--headless", "--quiet", "--resolution", "8", "--num-frames", "2"]),
    ("fem", "example_stokes", [*_CPU, "--headless", "--quiet", "--resolution", "8"]),
    ("fem", "example_stokes_transfer", [*_CPU, "--headless", "--quiet", "--resolution", "8"]),
    ("fem", "example_streamlines", [*_CPU, "--headless", "--quiet", "--resolution", "8"]),
    ("fem", "example_taylor_green", [*_CPU, "--headless", "--quiet", "--resolution", "8", "--num-frames", "2"]),
    ("tile", "example_tile_block_cholesky", [*_CPU, "--headless"]),
    ("tile", "example_tile_cholesky", [*_CPU, "--headless"]),
    ("tile", "example_tile_matmul", [*_CPU, "--headless"]),
    ("tile", "example_tile_mcgp", [*_CPU, "--headless", "--height", "16", "--slices", "2", "--sphere-resolution", "8"]),
]  # fmt: skip
# Examples of those folders left out, and why (read from the example, or what a run on a
# CPU-only machine raised).
COPIED_SKIPS: dict[tuple[str, str], str] = {
    ("core", "example_alloc_tracker"): "allocates pinned host memory: fails without CUDA (RuntimeError: Failed to allocate)",
    ("core", "example_custom_allocator"): "custom allocators are only supported on CUDA devices (RuntimeError)",
    ("core", "example_cupy"): "needs CuPy (not installed) and a CUDA device",
    ("core", "example_torch"): "needs PyTorch (not installed)",
    ("core", "example_mesh"): "loads its mesh from a USD asset (needs pxr / usd-core)",
    ("core", "example_mesh_intersect"): "loads its meshes from USD assets (needs pxr / usd-core)",
    ("core", "example_raycast"): "loads its mesh from a USD asset (needs pxr / usd-core)",
    ("core", "example_render_opengl"): "an OpenGL viewer (needs pyglet and a display)",
    ("core", "example_spin_lock"): 'runs on device="cuda" (hard-coded)',
    ("core", "example_work_queue"): 'runs on device="cuda" (hard-coded)',
    ("optim", "example_diffray"): "loads its mesh from a USD asset (needs pxr / usd-core)",
    ("fem", "example_cantilever_topology_optimization"): "needs nlopt (not installed)",
    ("fem", "example_apic_fluid_multi_env"): "raises without a CUDA device (its own check)",
    ("fem", "example_diffusion_mgpu"): "splits the problem over CUDA devices (wp.get_cuda_devices())",
    ("tile", "example_tile_convolution"): 'runs under wp.ScopedDevice("cuda:0") (hard-coded)',
    ("tile", "example_tile_fft"): 'runs under wp.ScopedDevice("cuda:0") (hard-coded)',
    ("tile", "example_tile_filtering"): 'runs under wp.ScopedDevice("cuda:0") (hard-coded)',
    ("tile", "example_tile_nbody"): 'prints "This example only runs on CUDA devices." and exits on the CPU',
    ("tile", "example_tile_stream_compaction"): 'prints "This example only runs on CUDA devices." and exits on the CPU',
    ("tile", "example_tile_mlp"): 'needs PyTorch and runs under wp.ScopedDevice("cuda:0")',
}


def _warp_examples_dir() -> Path | None:
    import importlib.util

    spec = importlib.util.find_spec("warp")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(list(spec.submodule_search_locations)[0]) / "examples"
    return folder if folder.is_dir() else None


@dataclass
class CopiedExample:
    group: str
    name: str
    args: list[str]
    source: Path

    @property
    def label(self) -> str:
        return f"{self.group}/{self.name.removeprefix('example_')}"

    def command(self) -> list[str]:
        return ["python", f"{self.name}.py", *self.args]


@dataclass
class CopiedResult:
    example: CopiedExample
    ok: bool = False
    error: str = ""
    seconds: float = 0.0
    compile_cpu_s: float | None = None
    measured: list[dict[str, Any]] = field(default_factory=list)  # at lines of the copy
    outside: list[dict[str, Any]] = field(default_factory=list)  # site-packages, <string>, elsewhere
    static: list[dict[str, Any]] = field(default_factory=list)  # confirm's joined findings
    agreements: list[dict[str, Any]] = field(default_factory=list)  # measured with a static twin
    misses: list[dict[str, Any]] = field(default_factory=list)
    contradicted: list[dict[str, Any]] = field(default_factory=list)  # static, not-observed
    notes: list[str] = field(default_factory=list)  # the report's notes (package builds, ...)

    def row(self) -> dict[str, int]:
        statuses = [f.get("status") for f in self.static]
        return {"measured_user": len(self.measured), "measured_outside": len(self.outside), "static": len(self.static),
                "agreements": len(self.agreements), "static_misses": len(self.misses),
                "contradicted": len(self.contradicted), "not_exercised": statuses.count("not-exercised"),
                "not_measurable": statuses.count("not-measurable"),
                "confirmed_static": statuses.count("confirmed")}  # fmt: skip


COPIED_COLUMNS = ("measured_user", "measured_outside", "static", "agreements", "static_misses", "contradicted")
COPIED_EXTRA = ("confirmed_static", "not_measurable", "not_exercised")


def discover_copied() -> tuple[list[CopiedExample], list[tuple[str, str]]]:
    """(examples to run, (label, reason) of those left out) of the installed warp-lang."""
    root = _warp_examples_dir()
    if root is None:
        return [], [("*", "warp-lang is not installed")]
    chosen = {(g, n): a for g, n, a in COPIED_EXAMPLES}
    runs, skipped = [], []
    for group in ("core", "optim", "fem", "tile"):
        for source in sorted((root / group).glob("example_*.py")):
            key = (group, source.stem)
            if key in chosen:
                runs.append(CopiedExample(group, source.stem, chosen[key], source))
            else:
                reason = COPIED_SKIPS.get(key, "not in the benchmark's list (new in this Warp version?)")
                skipped.append((f"{group}/{source.stem.removeprefix('example_')}", reason))
    return runs, skipped


def _classify_place(path: str, copy_dir: Path) -> str:
    if path.startswith("<") or "site-packages" in path or "dist-packages" in path:
        return "package"
    resolved = Path(path).resolve()
    return "user" if resolved == copy_dir or copy_dir in resolved.parents else "elsewhere"


def run_copied(example: CopiedExample, samples: int, timeout: float, tmp: Path) -> CopiedResult:
    result = CopiedResult(example)
    copy_dir = Path(tempfile.mkdtemp(prefix=f"{example.group}-{example.name}-", dir=tmp)).resolve()
    report_path = copy_dir.parent / f"{copy_dir.name}.report.json"
    try:
        with _recording(result):
            script = copy_dir / example.source.name
            shutil.copy2(example.source, script)
            argv = [sys.executable if a == "python" else a for a in example.command()]
            report = _measured(argv, samples, timeout, report_path, copy_dir, result, 600)
            if report is None:
                return result
            if not report.get("modules"):
                # Nothing to compare: an example that exits early on this device (a static claim on
                # its code would read "not observed" only because that code never ran).
                result.error = "the run loaded no Warp module (the example exits early on this device?)"
                return result
            base = Path(report.get("cwd") or copy_dir)
            for f in report.get("findings", []):
                place = _classify_place(_abs(f["path"], base), copy_dir)
                (result.measured if place == "user" else result.outside).append(f)
            result.notes = [str(n) for n in report.get("notes", [])]
            compile_cpu = (report.get("summary") or {}).get("compile_cpu_s") or {}
            if isinstance(compile_cpu, dict) and compile_cpu.get("median") is not None:
                result.compile_cpu_s = float(compile_cpu["median"])
            confirm = _cli(["confirm", "--json", str(report_path), "--format", "json", str(script)], cwd=copy_dir, timeout=600)
            if confirm.returncode not in (0, 1):
                result.error = f"confirm exit {confirm.returncode}: {confirm.stderr.strip()[-600:]}"
                return result
            joined = json.loads(confirm.stdout)
            result.static = list(joined.get("findings", []))
            missed = list(joined.get("missed", []))
            result.misses = missed
            # Measured findings of the copy with a static twin: confirm lists a twin's place on each
            # static finding it joined; every measured finding of the copy that confirm did not
            # list as missed had one.
            missed_keys = {(m["code"], _abs(m["path"], base), _line(m)) for m in missed}
            result.agreements = [m for m in result.measured if (m["code"], _abs(m["path"], base), _line(m)) not in missed_keys]
            result.contradicted = [f for f in result.static if f.get("status") == "not-observed"]
            result.ok = True
    finally:
        shutil.rmtree(copy_dir, ignore_errors=True)
        report_path.unlink(missing_ok=True)
    return result


def print_copied_table(results: list[CopiedResult], skipped: list[tuple[str, str]], details: bool) -> dict[str, int]:
    columns = (*COPIED_COLUMNS, *COPIED_EXTRA)
    heads = {"measured_user": "measured@user", "measured_outside": "outside(=0)", "static": "static",
             "agreements": "agreements", "static_misses": "misses", "contradicted": "contradicted",
             "confirmed_static": "confirmed", "not_measurable": "not-measurable", "not_exercised": "not-exercised"}  # fmt: skip
    width = max([len(r.example.label) for r in results] + [7])
    head = f"{'example':<{width}}  " + "  ".join(f"{heads[c]:>{max(len(heads[c]), 6)}}" for c in columns) + "  compile-CPU  seconds"
    print(head)
    print("-" * len(head))
    totals = dict.fromkeys(columns, 0)
    for r in results:
        print(f"  $ {' '.join(r.example.command())}")
        if not r.ok:
            print(f"{r.example.label:<{width}}  error: {r.error}")
            continue
        row = r.row()
        for key in totals:
            totals[key] += row[key]
        cpu = f"{r.compile_cpu_s:9.1f} s" if r.compile_cpu_s is not None else f"{'':>11}"
        print(f"{r.example.label:<{width}}  " + "  ".join(f"{row[c]:>{max(len(heads[c]), 6)}}" for c in columns)
              + f"  {cpu}  {r.seconds:7.1f}")  # fmt: skip
        if details:
            for m in r.agreements:
                print(f"    = {_short(m)}")
            for m in r.misses:
                print(f"    ! miss {_short(m)}")
            for m in r.outside:
                print(f"    !! outside the copy {_short(m)}")
            for s in r.contradicted:
                print(f"    ? contradicted {_short(s)}" + (f" ({s['status_reason']})" if s.get("status_reason") else ""))
            for n in r.notes:
                print(f"    note: {n if len(n) <= 150 else n[:149] + '…'}")
    print("-" * len(head))
    print(f"{'total':<{width}}  " + "  ".join(f"{totals[c]:>{max(len(heads[c]), 6)}}" for c in columns))
    ok = sum(r.ok for r in results)
    print(f"{ok} of {len(results)} examples measured; {len(skipped)} left out:")
    for label, reason in skipped:
        print(f"  - {label}: {reason}")
    return totals


def main_copied(args: argparse.Namespace) -> int:
    examples, skipped = discover_copied()
    if args.only:
        examples = [e for e in examples if any(o in e.label for o in args.only)]
    if args.list or not examples:
        for e in examples:
            print(f"{e.label:<45} {' '.join(e.command())}")
        for label, reason in skipped:
            print(f"{label:<45} skipped: {reason}")
        return 0 if examples else 2
    results: list[CopiedResult] = []
    with tempfile.TemporaryDirectory(prefix="warp-ct-differential-") as tmp:
        for i, example in enumerate(examples, 1):
            print(f"[{i}/{len(examples)}] {example.label}: {' '.join(example.command())}", file=sys.stderr, flush=True)
            results.append(run_copied(example, args.samples, args.timeout, Path(tmp)))
            r = results[-1]
            print(f"    {'ok' if r.ok else 'error: ' + r.error[-200:]} ({r.seconds:.0f} s)", file=sys.stderr, flush=True)
    columns = (*COPIED_COLUMNS, *COPIED_EXTRA)
    totals = {c: sum(r.row()[c] for r in results if r.ok) for c in columns}
    if args.json:
        out = {
            "mode": "warp-examples",
            "totals": totals,
            "skipped": [{"example": label, "reason": reason} for label, reason in skipped],
            "examples": [
                {"name": r.example.label, "command": r.example.command(), "ok": r.ok, "error": r.error,
                 "seconds": round(r.seconds, 1), "compile_cpu_s": r.compile_cpu_s, **(r.row() if r.ok else {}),
                 "details": {"agreements": r.agreements, "static_misses": r.misses, "measured_outside": r.outside,
                             "contradicted": r.contradicted, "static": r.static, "notes": r.notes}}  # fmt: skip
                for r in results
            ],
        }
        Path(args.json).write_text(json.dumps(out, indent=2), encoding="utf-8")
    print_copied_table(results, skipped, details=not args.quiet)
    return 0 if all(r.ok for r in results) else 1


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
    parser.add_argument("--warp-examples", action="store_true",
                        help="run Warp's own CPU examples (core, optim, fem, tile) copied out of the package instead")  # fmt: skip
    args = parser.parse_args(argv)
    if args.warp_examples:
        return main_copied(args)
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
