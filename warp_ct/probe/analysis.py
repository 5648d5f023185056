"""What the measurements mean: metrics over samples, module identities, plain-word diagnoses.

A module *identity* is (module name, hash) on a device: Warp compiles modules, and a module
that is built with several hashes in one run paid for several full builds. We count
distinct hashes, never ``compiled`` lines (on a warm cache churn shows as several
``cached`` loads). Several hashes at one block_dim are *hash churn* (options or kernels
changed after a load, per-call kernels); several block_dims are *block_dim spread*.

Diagnoses never claim a program is optimal: the best a clean report says is
"no structural churn found".
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from dataclasses import dataclass, field
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from warp_ct.probe.records import Cause, KernelSource, LaunchSignature, ModuleLoad, package_of_file
from warp_ct.probe.samples import SampleResult
from warp_ct.probe.stats import Summary, summarize, union_length

# Warm module work counts as "not near zero" above this floor and this share of cold work.
WARM_WORK_FLOOR_MS = 50.0
WARM_WORK_SHARE = 0.05
# Compilation is "not the bottleneck" below this share of the cold wall time.
COMPILE_MINOR_SHARE = 0.2
# A busy machine: Warp compiles on the calling thread, so on a quiet machine the command's
# CPU time over its compilation (cold - warm) is about the compile's elapsed time (parallel
# builds only raise it). Below half of it, other processes had the CPU. Judged only where
# compilation is at least half of the cold run, so that cold - warm is mostly compile work
# and not the noise of whatever else the program does (waiting on I/O, sleeping).
BUSY_CPU_SHARE = 0.5
BUSY_MIN_COMPILE_SHARE = 0.5

METRICS = (
    ("cold_module_ms", "cold module work", "ms"),
    ("native_compile_ms", "native compile", "ms"),
    ("cold_wall_s", "cold wall", "s"),
    ("warm_wall_s", "warm wall", "s"),
    ("compile_elapsed_s", "compile elapsed (cold - warm)", "s"),
    ("compile_cpu_s", "compile CPU (cold - warm)", "s"),
    ("cold_cpu_s", "cold CPU", "s"),
    ("warm_module_ms", "warm module work", "ms"),
    ("overlap_factor", "overlap factor", "x"),
    ("generated_source_bytes", "generated source", "bytes"),
)


@dataclass
class ModuleIdentity:
    """One Warp module on one device as the first successful sample's cold run saw it."""

    name: str
    device: str
    hashes: list[str]
    block_dims: list[int | None]
    hashes_by_block_dim: dict[str, list[str]]
    loads: int
    builds: int  # loads that ran the native compiler
    ms: float  # median over samples of the cold load time summed over this module's loads
    native_ms: float | None
    kernels: list[KernelSource]
    source_bytes: int | None
    warm_builds: int = 0
    warm_ms: float = 0.0
    options: dict[str, Any] = field(default_factory=dict)
    adjoint_launched: bool = False
    taped: bool = False  # a wp.Tape recorded launches of its kernels
    option_names: list[str] = field(default_factory=list)  # module options this Warp has
    config: dict[str, Any] = field(default_factory=dict)  # inherited wp.config values at its last load
    causes: list[Cause] = field(default_factory=list)  # why its loads happened (attribution)

    @property
    def kernel_keys(self) -> frozenset[str]:
        """What the module holds, independent of its name (unique modules' names carry a hash)."""
        return frozenset(normalize_kernel_key(k.key) for k in self.kernels)

    @property
    def package(self) -> str | None:
        """The package whose module this is when none of its kernels is the user's (``warp``,
        ``warp.fem`` for the integrand modules warp.fem builds, ``newton``); None for the user's
        modules. The user's code does not decide how such a module is split or built."""
        files = [k.file for k in self.kernels if k.file]
        if not files:
            return "warp" if self.name == "warp" or self.name.startswith("warp.") else None
        packages = [package_of_file(f) for f in files]
        if any(p is None for p in packages):
            return None
        return max(set(packages), key=lambda p: (packages.count(p), p))  # type: ignore[arg-type]

    @property
    def differentiated(self) -> bool:
        """Something differentiates through its kernels: backward code is needed here."""
        return self.adjoint_launched or self.taped

    @property
    def is_unique_module(self) -> bool:
        """Named like ``<kernel key>_<hash8>``: made by ``module="unique"``."""
        return len(self.kernels) == 1 and bool(re.fullmatch(re.escape(self.kernels[0].key) + r"_[0-9a-f]{8}", self.name))

    @property
    def hash_churn(self) -> bool:
        return any(len(h) > 1 for h in self.hashes_by_block_dim.values())

    @property
    def block_dim_spread(self) -> bool:
        return len(self.block_dims) > 1

    @property
    def built_more_than_once(self) -> bool:
        return len(self.hashes) > 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "device": self.device,
            "hashes": self.hashes,
            "block_dims": self.block_dims,
            "hashes_by_block_dim": self.hashes_by_block_dim,
            "loads": self.loads,
            "builds": self.builds,
            "ms": round(self.ms, 3),
            "native_ms": None if self.native_ms is None else round(self.native_ms, 3),
            "kernels": [k.to_dict() for k in self.kernels],
            "source_bytes": self.source_bytes,
            "warm_builds": self.warm_builds,
            "warm_ms": round(self.warm_ms, 3),
            "options": self.options,
            "adjoint_launched": self.adjoint_launched,
            "taped": self.taped,
            "option_names": self.option_names,
            "config": self.config,
            "hash_churn": self.hash_churn,
            "block_dim_spread": self.block_dim_spread,
            "unique_module": self.is_unique_module,
            "causes": [c.to_dict() for c in self.causes],
        }


@dataclass
class Diagnosis:
    """A plain-words finding with the measured evidence that triggered it."""

    code: str
    title: str
    message: str
    evidence: list[str]
    modules: list[str] = field(default_factory=list)
    problem: bool = True  # False for informational results (e.g. "no structural churn found")

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "title": self.title,
            "message": self.message,
            "evidence": self.evidence,
            "modules": self.modules,
            "problem": self.problem,
        }


@dataclass
class Analysis:
    per_sample: list[dict[str, float | None]]
    summary: dict[str, Summary]
    modules: list[ModuleIdentity]
    diagnoses: list[Diagnosis]
    launch_topology: list[tuple[Any, ...]]
    notes: list[str]
    busy: list[str] = field(default_factory=list)  # busy_samples(): "sample 2: 0.90 s of CPU in 3.10 s"


def python_module_name(path: str | os.PathLike[str]) -> str:
    """Dotted module name of a source file, walking up through packages (``__init__.py``)."""
    file = Path(path).resolve()
    parts = [] if file.stem == "__init__" else [file.stem]
    directory = file.parent
    while (directory / "__init__.py").exists():
        parts.insert(0, directory.name)
        directory = directory.parent
    return ".".join(parts)


MAIN = "__main__"


def user_module_name(module: ModuleIdentity) -> str:
    """The module's name as the user's code knows it, the name the static side uses: a script
    run as ``python app.py`` (or ``python -m pkg``) makes a Warp module ``__main__``, which the
    user (and ``warp-ct lint``) knows by its file, ``app`` (``pkg.__main__``). Other modules,
    and ``__main__`` modules whose kernels are not in exactly one file of the user's, keep
    their name."""
    name = module.name
    if name != MAIN and not name.startswith(MAIN + "."):
        return name
    files = {k.file for k in module.kernels if k.file}
    if len(files) != 1:
        return name
    (file,) = files
    if package_of_file(file) is not None or not os.path.isabs(file) or not file.endswith(".py"):
        return name
    known = python_module_name(file)
    return name if not known or known == MAIN else known + name[len(MAIN):]


def shown_module_name(module: ModuleIdentity) -> str:
    """```app` (run as `__main__`)`` for a script's module, else ```name```."""
    known = user_module_name(module)
    return f"`{module.name}`" if known == module.name else f"`{known}` (run as `{module.name}`)"


def normalize_kernel_key(key: str) -> str:
    """A kernel key without its enclosing functions (``make__locals__k`` -> ``k``).

    Hoisting a per-call kernel to module scope changes Warp's key but not the launch; the
    launch topology compares what runs, not where it was defined.
    """
    return key.rsplit("__locals__", 1)[-1]


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def launch_topology(launches: list[LaunchSignature]) -> list[tuple[Any, ...]]:
    """(kernel, dim, dtypes, device, block_dim, adjoint, count) in order of first launch.

    Argument types are compared without object addresses: reports of older bootstraps
    recorded a warp.fem struct type as ``<warp._src.codegen.Struct object at 0x7f40...>``,
    different in every process.
    """
    return [
        (normalize_kernel_key(s.kernel), list(s.dim), [_ADDRESS.sub("", t) for t in s.dtypes], s.device, s.block_dim,
         s.adjoint, s.count)
        for s in launches
    ]


def sample_metrics(sample: SampleResult) -> dict[str, float | None]:
    cold, warm = sample.cold, sample.warm
    native = [load.native_ms for load in cold.loads if load.native_ms is not None]
    intervals = [(load.start_s, load.start_s + load.ms / 1000.0) for load in cold.loads]
    covered = union_length(intervals)
    module_ms = sum(load.ms for load in cold.loads)
    return {
        "cold_module_ms": module_ms,
        "native_compile_ms": sum(native) if native else None,
        "cold_wall_s": cold.wall_s,
        "warm_wall_s": None if warm is None else warm.wall_s,
        "compile_elapsed_s": None if warm is None else cold.wall_s - warm.wall_s,
        "compile_cpu_s": None if warm is None or cold.cpu_s is None or warm.cpu_s is None else cold.cpu_s - warm.cpu_s,
        "cold_cpu_s": cold.cpu_s,
        "warm_module_ms": None if warm is None else sum(load.ms for load in warm.loads),
        "overlap_factor": (module_ms / 1000.0) / covered if covered > 0 else None,
        "generated_source_bytes": float(sample.cache.generated_source_bytes),
    }


def analyze(samples: Sequence[SampleResult]) -> Analysis:
    """Metrics, module identities and diagnoses of a measurement's samples."""
    ok = [s for s in samples if s.ok]
    per_sample = [sample_metrics(s) for s in ok]
    summary = {name: summarize(m[name] for m in per_sample) for name, _label, _unit in METRICS}
    notes: list[str] = []
    for sample in samples:
        for run in (sample.cold, sample.warm):
            for note in run.notes if run else ():
                if note not in notes:
                    notes.append(note)
    if not ok:
        return Analysis(per_sample, summary, [], [], [], notes)

    busy = busy_samples(ok, per_sample)
    if busy:
        notes.append(busy_warning(busy))
    modules = _module_identities(ok)
    first = ok[0]
    topology = launch_topology(first.cold.launches)
    diagnoses = _diagnose(ok, modules, summary)
    if any(not s.cold.launch_data_complete for s in ok):
        notes.append("a process exited without flushing its launch records (os._exit or killed): launch data is partial")
    if any(s.cold.unrecorded_launches for s in ok):
        notes.append("more distinct launch signatures than the probe keeps: the tail of the launch list is only counted")
    return Analysis(per_sample, summary, modules, diagnoses, topology, notes, busy)


def busy_samples(ok: Sequence[SampleResult], per_sample: Sequence[dict[str, float | None]]) -> list[str]:
    """``sample 2: 0.90 s of CPU in 3.10 s`` for each sample whose compilation got
    less than :data:`BUSY_CPU_SHARE` of the CPU (see there)."""
    out = []
    for sample, metrics in zip(ok, per_sample):
        elapsed, cpu, cold = metrics["compile_elapsed_s"], metrics["compile_cpu_s"], metrics["cold_wall_s"]
        if elapsed is None or cpu is None or not cold or elapsed < BUSY_MIN_COMPILE_SHARE * cold:
            continue
        if cpu < BUSY_CPU_SHARE * elapsed:
            out.append(f"sample {sample.index + 1}: {max(cpu, 0.0):.2f} s of CPU in {elapsed:.2f} s")
    return out


def busy_warning(busy: Sequence[str]) -> str:
    return (
        f"the machine was busy: compiling got less than half a CPU ({'; '.join(busy)}), so other processes "
        "slowed it and wall times and verdicts are unreliable; measure again on a quiet machine"
    )


def _median(values: list[float]) -> float:
    return summarize(values).median or 0.0


def _module_identities(ok: list[SampleResult]) -> list[ModuleIdentity]:
    first = ok[0]
    grouped: dict[tuple[str, str], list[ModuleLoad]] = defaultdict(list)
    for load in first.cold.loads:
        grouped[(load.module, load.device)].append(load)

    ms_by_sample: dict[tuple[str, str], list[float]] = defaultdict(list)
    for sample in ok:
        totals: dict[tuple[str, str], float] = defaultdict(float)
        for load in sample.cold.loads:
            totals[(load.module, load.device)] += load.ms
        for key, total in totals.items():
            ms_by_sample[key].append(total)

    adjoint_modules = {s.module for s in first.cold.launches if s.adjoint}
    taped_modules = {t.module for sample in ok for t in sample.cold.taped}
    identities: list[ModuleIdentity] = []
    for (name, device), loads in grouped.items():
        hashes = _distinct(load.hash or "?" for load in loads)
        block_dims = _distinct(load.block_dim for load in loads)
        by_block_dim: dict[str, list[str]] = {}
        for load in loads:
            bucket = by_block_dim.setdefault(str(load.block_dim), [])
            if (load.hash or "?") not in bucket:
                bucket.append(load.hash or "?")
        kernels = _distinct(k for load in loads for k in load.kernels)
        native = [load.native_ms for load in loads if load.native_ms is not None]
        source_bytes = _source_bytes(first, name, hashes)
        warm_loads = [w for w in (first.warm.loads if first.warm else ()) if (w.module, w.device) == (name, device)]
        identities.append(
            ModuleIdentity(
                name=name,
                device=device,
                hashes=hashes,
                block_dims=block_dims,
                hashes_by_block_dim=by_block_dim,
                loads=len(loads),
                builds=sum(1 for load in loads if load.status == "compiled"),
                ms=_median(ms_by_sample[(name, device)]),
                native_ms=sum(native) if native else None,
                kernels=kernels,
                source_bytes=source_bytes,
                warm_builds=sum(1 for w in warm_loads if w.status == "compiled"),
                warm_ms=sum(w.ms for w in warm_loads),
                options=loads[-1].options,
                adjoint_launched=name in adjoint_modules,
                taped=name in taped_modules,
                option_names=list(loads[-1].option_names),
                config=loads[-1].config,
                causes=[c for c in first.cold.causes if (c.module, str(c.device)) == (name, device)],
            )
        )
    identities.sort(key=lambda m: -m.ms)
    return identities


def _distinct(items):
    out = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def _source_bytes(sample: SampleResult, name: str, hashes: list[str]) -> int | None:
    by_dir = sample.cache.source_bytes_by_dir
    if not by_dir:
        return None
    wanted = {f"wp_{name}_{h[:7]}" for h in hashes}
    found = [size for directory, size in by_dir.items() if directory in wanted]
    return sum(found) if found else None


def _seconds(ms: float) -> str:
    return f"{ms / 1000.0:.2f} s"


def _diagnose(ok: list[SampleResult], modules: list[ModuleIdentity], summary: dict[str, Summary]) -> list[Diagnosis]:
    diagnoses: list[Diagnosis] = []
    first = ok[0]

    if not first.cold.loads:
        if first.cold.warp_processes == 0:
            message = "The command never imported Warp (or the probe's bootstrap did not run, e.g. python -I or -S)."
        else:
            message = "Warp was imported but no module was loaded: nothing was compiled."
        diagnoses.append(Diagnosis("no-warp-modules", "No Warp module was loaded", message, [], problem=False))
        return diagnoses

    # Modules of Warp or an installed package (every kernel in their files) are not the user's
    # to restructure: their rebuilds are notes naming the package and the user's line that led
    # there (findings.package_notes, added by the report), not problems for a rule to explain.
    own = [m for m in modules if m.package is None]
    for module in own:
        if module.hash_churn:
            detail = [
                f"block_dim {bd}: {len(hs)} hashes ({', '.join(h[:8] for h in hs)})"
                for bd, hs in module.hashes_by_block_dim.items()
                if len(hs) > 1
            ]
            diagnoses.append(
                Diagnosis(
                    "hash-churn",
                    f"Module {shown_module_name(module)} was rebuilt with new hashes",
                    f"Module {shown_module_name(module)} on {module.device} was built {len(module.hashes)}x with "
                    f"{len(module.hashes)} different hashes at the same block_dim, {_seconds(module.ms)} in all. "
                    "Its kernels or options changed after it was first loaded (options set late, kernels "
                    "defined per call or after the first launch), so every change paid a full module build.",
                    detail + [f"{module.loads} loads, {module.builds} native builds in the cold run"],
                    [module.name],
                )
            )
        if module.block_dim_spread:
            diagnoses.append(
                Diagnosis(
                    "block-dim-spread",
                    f"Module {shown_module_name(module)} was built at {len(module.block_dims)} block_dims",
                    f"Module {shown_module_name(module)} on {module.device} was compiled once per block_dim "
                    f"({', '.join(str(b) for b in module.block_dims)}): each variant compiles every kernel "
                    "of the module again.",
                    [f"block_dim {bd}: hash {', '.join(h[:8] for h in hs)}" for bd, hs in module.hashes_by_block_dim.items()],
                    [module.name],
                )
            )

    cold_ms = summary["cold_module_ms"].median or 0.0
    warm_ms = summary["warm_module_ms"].median or 0.0
    warm_built = [m for m in modules if m.warm_builds]
    cache_not_reused = bool(warm_built or warm_ms > max(WARM_WORK_FLOOR_MS, WARM_WORK_SHARE * cold_ms))
    if cache_not_reused:
        diagnoses.append(
            Diagnosis(
                "cache-not-reused",
                "The warm run did not reuse the kernel cache",
                f"Re-running on the cache the cold run had just filled still spent {warm_ms:.0f} ms in module "
                f"loads (cold: {cold_ms:.0f} ms). Something destroys or bypasses the cache (cache_kernels=False, "
                "clear_kernel_cache(), a temporary kernel_cache_dir) or module hashes differ per process. "
                "The warm run compiled too, so cold - warm does not measure this program's compile time.",
                [f"{shown_module_name(m)}: {m.warm_builds} native builds in the warm run, {m.warm_ms:.0f} ms" for m in warm_built]
                or [f"warm module work {warm_ms:.0f} ms"],
                [m.name for m in warm_built],
            )
        )

    if len(ok) > 1:
        reference = {(load.module, load.hash) for load in first.cold.loads}
        differing = [s.index for s in ok[1:] if {(load.module, load.hash) for load in s.cold.loads} != reference]
        if differing:
            diagnoses.append(
                Diagnosis(
                    "hashes-differ-between-samples",
                    "Module hashes change from one process to the next",
                    "The same command produced different module hashes in different samples, so a cache "
                    "filled by one process can never serve the next (e.g. salted hash() or id() values "
                    "reaching generated code or constants).",
                    [f"sample {i} differs from sample {first.index}" for i in differing],
                )
            )

    one_kernel = [m for m in own if len(m.kernels) == 1 and m.builds]
    if len(one_kernel) >= 2:
        unique = [m for m in one_kernel if m.is_unique_module]
        diagnoses.append(
            Diagnosis(
                "one-kernel-modules",
                f"{len(one_kernel)} modules hold a single kernel",
                f"{len(one_kernel)} modules were each built for one kernel"
                + (f" ({len(unique)} from module=\"unique\")" if unique else "")
                + ". Every module pays a fixed build cost; stable kernels that share options can share a module.",
                [f"{_one_kernel_name(m)}: {m.ms:.0f} ms" for m in one_kernel[:20]],
                [m.name for m in one_kernel],
            )
        )

    lto = max(s.cache.lto_artifacts for s in ok)
    if lto:
        diagnoses.append(
            Diagnosis(
                "lto-artifacts",
                "LTO artifacts were generated",
                "The cold run generated link-time-optimisation artifacts (MathDx / tile libraries): "
                "their generation and link are part of the compile cost.",
                [f"{lto} LTO files, {max(s.cache.lto_bytes for s in ok)} bytes"],
            )
        )

    errors = [load for load in first.cold.loads if load.status == "error"]
    if errors:
        diagnoses.append(
            Diagnosis(
                "load-errors",
                "Some module loads failed",
                "Module loads raised errors; their time is counted but nothing was cached for them.",
                [f"`{e.module}`: {e.error}" for e in errors[:10]],
                _distinct(e.module for e in errors),
            )
        )

    escaped = [d for d in first.cold.cache_dirs if "warp-ct-probe-" not in d]
    if escaped:
        diagnoses.append(
            Diagnosis(
                "cache-dir-not-isolated",
                "The program chose its own kernel cache directory",
                "The program set wp.config.kernel_cache_dir itself, so the probe's private cache was not "
                "used: cold runs may not be cold, and the program wrote to that directory.",
                escaped,
            )
        )

    elapsed = summary["compile_elapsed_s"].median
    cold_wall = summary["cold_wall_s"].median
    # Only where the warm run reused the cache: a warm run that compiled as much as the cold
    # one makes cold - warm about zero (or negative) whatever the compile cost was.
    if not cache_not_reused and elapsed is not None and cold_wall and elapsed < COMPILE_MINOR_SHARE * cold_wall:
        share = f"{elapsed:.2f} s" if elapsed >= 0 else f"within the noise of the run ({elapsed:+.2f} s)"
        diagnoses.append(
            Diagnosis(
                "compile-not-dominant",
                "Compilation is a small part of the cold run",
                f"Compile elapsed (cold - warm) is {share} of a {cold_wall:.2f} s cold run: "
                "look for the bottleneck elsewhere before restructuring modules.",
                [f"compile elapsed {elapsed:.2f} s, cold wall {cold_wall:.2f} s"],
                problem=False,
            )
        )

    overlap = summary["overlap_factor"].median
    if overlap is not None and overlap > 1.2:
        diagnoses.append(
            Diagnosis(
                "overlapping-builds",
                "Module builds overlapped",
                f"Module builds ran concurrently (overlap factor {overlap:.2f}): judge changes on elapsed "
                "time, not on summed module work.",
                [f"overlap factor {overlap:.2f}"],
                problem=False,
            )
        )

    churn_codes = {"hash-churn", "block-dim-spread", "one-kernel-modules", "lto-artifacts"}
    if not any(d.code in churn_codes for d in diagnoses):
        rebuilt_elsewhere = [m for m in modules if m.package is not None and (m.hash_churn or m.block_dim_spread)]
        others = (f" ({len(rebuilt_elsewhere)} module(s) of Warp or installed packages were rebuilt inside those "
                  "packages: see the notes)") if rebuilt_elsewhere else ""  # fmt: skip
        if own:
            each = f"Each of the {len(own)} modules of your code was built with one hash at one block_dim"
        else:
            each = f"None of the {len(modules)} modules built has its kernels in your files"
        diagnoses.append(
            Diagnosis(
                "no-structural-churn",
                "No structural churn found",
                f"{each} and no LTO was generated{others}. This rules out redundant builds, not oversized ones "
                "(backward code, unrolling, precompiled headers).",
                [f"{shown_module_name(m)}: 1 hash, {m.ms:.0f} ms" for m in own[:20]],
                problem=False,
            )
        )
    return diagnoses


def _one_kernel_name(module: ModuleIdentity) -> str:
    """The module once: a unique module's name already carries its kernel's key."""
    key = module.kernels[0].key
    if module.name.startswith(key) or module.name.endswith(key):
        return shown_module_name(module)
    return f"{shown_module_name(module)} (kernel `{key}`)"
