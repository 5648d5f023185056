"""``run_measure``: cold and warm runs of a command in private caches, N samples.

Stable API (the language server calls it from a worker thread)::

    from warp_ct.probe.measure import run_measure
    report = run_measure(["python", "train.py"], cwd=root, samples=3, timeout=600,
                         progress=lambda message, fraction: ..., cancel=threading.Event())

Raises a :class:`~warp_ct.probe.errors.ProbeError` subclass (``exit_code`` attribute) for
command not found (127), every sample failing (3), a timeout (4), Warp missing in the
command's environment (5), and :class:`~warp_ct.probe.errors.ProbeCancelled` (130) when
``cancel`` is set or on Ctrl-C. The child and everything it started are stopped and every
temp dir removed before any of these propagate.
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from warp_ct.probe.cuda import CUDA_ARCHS_ENV, install_helper, lto_in_cache, parse_cuda_archs
from warp_ct.probe.cuda_records import CudaRun, read_cuda_records
from warp_ct.probe.errors import AllSamplesFailed, ProbeCancelled, ProbeError, ProbeTimeout, WarpMissing
from warp_ct.probe.isolation import Workspace, child_environment, run_child
from warp_ct.probe.records import read_records_dir
from warp_ct.probe.report import ProbeReport, RunResult, SampleResult, scan_kernel_cache

Progress = Callable[[str, float], None]


def run_measure(
    argv: list[str],
    *,
    cwd: str | None = None,
    samples: int = 3,
    timeout: float | None = None,
    env: dict[str, str] | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    lever: Mapping[str, Any] | None = None,
    cuda_archs: Sequence[int] | None = None,
) -> ProbeReport:
    """Measure ``argv`` ``samples`` times (cold run, then warm run on the same fresh cache).

    Args:
        argv: the command, run without a shell.
        cwd: its working directory (default: the current one).
        samples: number of fresh caches; use >= 3 for decisions (single cold runs vary 2x).
        timeout: seconds allowed per run (cold or warm); ``None`` waits forever.
        env: the environment to run it in (default: this process's). PYTHONPATH is kept;
            the probe's bootstrap is prepended and chains any existing ``sitecustomize``.
        progress: called with (message, fraction done in 0..1) before and after each run.
        cancel: set it from another thread to stop the child; raises ``ProbeCancelled``.
        lever: an option change the bootstrap applies in every run (``probe levers``):
            ``{"config": {name: value}, "module_options": {name: value}, "modules": [names] | None}``.
        cuda_archs: CUDA archs (``[86, 90]``) to compile every loaded module for through NVRTC,
            at each block_dim its launches asked for: one more run per sample after the warm
            one, on the same caches, whose time is in no metric (see :mod:`warp_ct.probe.cuda`).

    Returns:
        a :class:`ProbeReport` (samples whose command failed are kept, marked not ok).
    """
    if not argv:
        raise ProbeError("no command given: put it after `--`, e.g. warp-ct probe measure -- python app.py")
    check_run_limits(samples, timeout)
    if cwd is not None and not os.path.isdir(cwd):
        raise ProbeError(f"working directory not found: {cwd}")
    base_env: Mapping[str, str] = os.environ if env is None else env
    report_progress = progress or (lambda _message, _fraction: None)
    archs = _checked_archs(cuda_archs)
    runs_per_sample = 3 if archs else 2
    total_runs = runs_per_sample * samples
    results: list[SampleResult] = []
    lever_json = None if lever is None else json.dumps(dict(lever))

    with Workspace() as workspace:
        if archs:
            install_helper(workspace.bootstrap_dir)
        for index in range(samples):
            dirs = workspace.new_sample(index)
            runs: dict[str, RunResult] = {}
            for offset, kind in enumerate(("cold", "warm")):
                done = (runs_per_sample * index + offset) / total_runs
                report_progress(f"sample {index + 1}/{samples}: {kind} run", done)
                if cancel is not None and cancel.is_set():
                    raise ProbeCancelled("measurement cancelled")
                records_dir = dirs.records_for(kind)
                output_dir = dirs.root / f"output-{kind}"
                output_dir.mkdir()
                child = run_child(
                    argv,
                    cwd=cwd,
                    env=_without_cuda(child_environment(
                        base_env, dirs, bootstrap_dir=workspace.bootstrap_dir, records_dir=records_dir, lever_json=lever_json
                    )),
                    output_dir=output_dir,
                    timeout=timeout,
                    cancel=cancel,
                )
                records = read_records_dir(records_dir, child.start_epoch)
                runs[kind] = RunResult.from_records(
                    kind, child.exit_code, child.wall_s, records, child.stderr_tail, child.cpu_s
                )
                status = "ok" if child.exit_code == 0 else f"exit {child.exit_code}"
                report_progress(
                    f"sample {index + 1}/{samples}: {kind} run {child.wall_s:.2f} s, "
                    f"{len(records.loads)} module loads ({status})",
                    (runs_per_sample * index + offset + 1) / total_runs,
                )
                if child.exit_code != 0:
                    _raise_if_warp_missing(runs[kind])
                    break  # a failed cold run leaves nothing to warm
            result = SampleResult(index, runs["cold"], runs.get("warm"), scan_kernel_cache(dirs.warp_cache))
            if archs and result.ok:
                report_progress(f"sample {index + 1}/{samples}: CUDA builds for {_arch_list(archs)}",
                                (runs_per_sample * index + 2) / total_runs)  # fmt: skip
                result.cuda = _cuda_run(argv, cwd, base_env, dirs, workspace, archs, lever_json, timeout, cancel)
                report_progress(
                    f"sample {index + 1}/{samples}: {len(result.cuda.builds)} CUDA builds "
                    f"({sum(b.ms or 0.0 for b in result.cuda.builds) / 1000.0:.2f} s)",
                    (runs_per_sample * index + 3) / total_runs,
                )
            results.append(result)

    report = ProbeReport(command=list(argv), cwd=os.path.abspath(cwd or os.getcwd()), samples=results)
    if not report.ok_samples:
        last = results[-1]
        failed = last.warm if last.warm is not None and not last.warm.ok else last.cold
        raise AllSamplesFailed(
            f"the command failed in every sample ({len(results)}), last exit code {failed.exit_code}"
            + _stderr_excerpt(failed.stderr_tail),
            report,
        )
    return report


def _checked_archs(cuda_archs: Sequence[int] | None) -> tuple[int, ...]:
    if not cuda_archs:
        return ()
    try:
        return parse_cuda_archs(list(cuda_archs))
    except ValueError as error:
        raise ProbeError(f"--cuda-arch: {error}") from None


def _arch_list(archs: Sequence[int]) -> str:
    return ", ".join(f"sm_{a}" for a in archs)


def _without_cuda(env: dict[str, str]) -> dict[str, str]:
    """Cold and warm runs never compile CUDA at exit, whatever the caller's environment says."""
    env.pop(CUDA_ARCHS_ENV, None)
    return env


def _cuda_run(argv: list[str], cwd: str | None, base_env: Mapping[str, str], dirs: Any, workspace: Workspace,
              archs: tuple[int, ...], lever_json: str | None, timeout: float | None,
              cancel: threading.Event | None) -> CudaRun:  # fmt: skip
    """The command once more on the sample's caches, compiling CUDA at exit (``--cuda-arch``).
    A timeout keeps the builds done so far; a cancel or Ctrl-C stops the measurement."""
    records_dir = dirs.records_for("cuda")
    output_dir = dirs.root / "output-cuda"
    output_dir.mkdir()
    env = child_environment(base_env, dirs, bootstrap_dir=workspace.bootstrap_dir, records_dir=records_dir,
                            lever_json=lever_json)  # fmt: skip
    env[CUDA_ARCHS_ENV] = ",".join(str(a) for a in archs)
    exit_code: int | None = None
    wall_s: float | None = None
    timed_out = False
    lto_before = lto_in_cache(dirs.warp_cache)
    if cancel is not None and cancel.is_set():
        raise ProbeCancelled("measurement cancelled")
    try:
        child = run_child(argv, cwd=cwd, env=env, output_dir=output_dir, timeout=timeout, cancel=cancel)
        exit_code, wall_s = child.exit_code, round(child.wall_s, 4)
    except ProbeTimeout:
        timed_out = True
    run = read_cuda_records(records_dir, archs)
    run.exit_code, run.wall_s = exit_code, wall_s
    lto_after = lto_in_cache(dirs.warp_cache)  # LTO IR is CUDA's (MathDx): the CPU runs make none
    run.lto_artifacts, run.lto_bytes = max(0, lto_after[0] - lto_before[0]), max(0, lto_after[1] - lto_before[1])
    if timed_out:
        run.notes.append(f"the CUDA build run passed the {timeout:g} s timeout and was stopped: "
                         f"{len(run.builds)} build(s) done before it")  # fmt: skip
    return run


def check_run_limits(samples: int, timeout: float | None) -> None:
    """Reject a sample count below 1 and a timeout that is not a finite number of seconds
    above 0 (``nan`` compares false to everything: it would mean no timeout at all)."""
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise ProbeError(f"--samples must be a whole number of at least 1, got {samples!r}")
    if timeout is not None and not (isinstance(timeout, (int, float)) and math.isfinite(timeout) and timeout > 0):
        raise ProbeError(f"--timeout must be a number of seconds above 0, got {timeout!r}")


def _raise_if_warp_missing(run: RunResult) -> None:
    """A child that died importing warp: the measured environment has no Warp."""
    for uncaught in run.uncaught:
        missing = uncaught.get("missing_module") or ""
        if missing == "warp" or missing.startswith("warp."):
            raise WarpMissing(
                "Warp is not importable in the command's environment "
                f"({uncaught.get('type')}: {uncaught.get('message')}); install warp-lang there"
            )
    if "No module named 'warp'" in run.stderr_tail:
        raise WarpMissing("Warp is not importable in the command's environment; install warp-lang there")


def _stderr_excerpt(tail: str, lines: int = 6) -> str:
    kept = [line for line in tail.strip().splitlines() if line.strip()][-lines:]
    return (":\n  " + "\n  ".join(kept)) if kept else ""


def describe_command(argv: Sequence[str]) -> str:
    import shlex

    return " ".join(shlex.quote(a) for a in argv)
