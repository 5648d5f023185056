"""Editor latency: time from ``didChange`` to ``publishDiagnostics`` after the debounce.

Starts a real ``warp-ct serve`` over stdio, opens a generated 2,000-line Warp file (kernels,
factories, launches and option changes, so that every rule checks its tree and finds
things), then makes 50 single-character edits one at a time, waiting for each version's
diagnostics. Reported: p50 / p95 / max of (publish time - change time - debounce).

    python benchmarks/lsp_latency.py [--lines 2000] [--edits 50] [--debounce-ms 200]

Goal (DESIGN.md): p95 <= 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

KERNEL_BLOCKS = [
    '''@wp.kernel(module_options={{"enable_backward": False}})
def scale_{n}(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] * s + float({n})
''',
    '''@wp.kernel
def axpy_{n}(x: wp.array(dtype=wp.vec3), y: wp.array(dtype=wp.vec3), alpha: float):
    i = wp.tid()
    v = x[i] * alpha + y[i]
    if wp.length(v) > 1.0e3:
        v = wp.normalize(v)
    y[i] = v
''',
    '''def make_kernel_{n}(k: float):
    @wp.kernel
    def per_call_{n}(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = a[i] + k
    return per_call_{n}
''',
    '''@wp.func
def helper_{n}(x: float, y: float):
    return wp.sqrt(x * x + y * y) + float({n})
''',
    '''def run_{n}(device="cpu"):
    a = wp.zeros(64, dtype=float, device=device)
    wp.launch(scale_{m}, dim=64, inputs=[a, 2.0], device=device)
    wp.set_module_options({{"enable_backward": False}})
    wp.launch(scale_{m}, dim=64, inputs=[a, 3.0], device=device, block_dim=128)
    return a.numpy().sum()
''',
]


def generate(lines: int) -> str:
    out = ['"""Generated Warp module for the warp-ct latency benchmark: ünïcödé 🚀."""', "import numpy as np", "import warp as wp", ""]
    n = 0
    while len("\n".join(out).splitlines()) < lines:
        block = KERNEL_BLOCKS[n % len(KERNEL_BLOCKS)]
        out.append(block.format(n=n, m=n - n % len(KERNEL_BLOCKS)))
        n += 1
    text = "\n".join(out)
    return "\n".join(text.splitlines()[:lines]) + "\n"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


async def run(lines: int, edits: int, debounce_ms: int, warmup: int) -> dict[str, float]:
    client = LanguageClient("warp-ct-bench", "1")
    arrivals: dict[int, float] = {}
    counts: dict[str, int] = {}
    got = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(params: types.PublishDiagnosticsParams) -> None:
        if params.version is not None:
            arrivals.setdefault(params.version, time.perf_counter())
            counts["diagnostics"] = len(params.diagnostics)
        got.set()

    analysis_ms: dict[int, float] = {}
    timing_re = re.compile(r"timing \S+ v(\d+) \(\w+\): waited [\d.]+ ms, analysis ([\d.]+) ms")

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def on_log(params: types.LogMessageParams) -> None:
        match = timing_re.search(params.message)
        if match:
            analysis_ms[int(match.group(1))] = float(match.group(2))

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    env["WARP_CT_LSP_TIMINGS"] = "1"
    await client.start_io(sys.executable, "-m", "warp_ct", "serve", env=env)
    with tempfile.TemporaryDirectory(prefix="warp-ct-bench-") as workspace:
        path = Path(workspace) / "big_module.py"
        text = generate(lines)
        path.write_text(text, encoding="utf-8")
        uri = from_fs_path(str(path))
        await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                root_uri=from_fs_path(workspace),
                initialization_options={"debounceMs": debounce_ms},
            )
        )
        client.initialized(types.InitializedParams())

        async def wait_version(version: int) -> float:
            while version not in arrivals:
                got.clear()
                await asyncio.wait_for(got.wait(), 60)
            return arrivals[version]

        client.text_document_did_open(
            types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
        )
        await wait_version(1)
        target_line = text.splitlines().index("def axpy_1(x: wp.array(dtype=wp.vec3), y: wp.array(dtype=wp.vec3), alpha: float):") + 2
        latencies = []
        overheads = []
        version = 1
        for i in range(warmup + edits):
            version += 1
            # type one character at the end of a line inside a kernel (incremental sync)
            column = len(text.splitlines()[target_line]) + i  # trailing spaces accumulate harmlessly
            change = types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=target_line, character=column), end=types.Position(line=target_line, character=column)),
                text=" ",
            )
            sent = time.perf_counter()
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=[change]
                )
            )
            arrived = await wait_version(version)
            if i >= warmup:
                latency = (arrived - sent) * 1000.0 - debounce_ms
                latencies.append(latency)
                if version in analysis_ms:
                    overheads.append(latency - analysis_ms[version])
        await client.shutdown_async(None)
        client.exit(None)
    await client.stop()
    return {
        "lines": lines,
        "edits": edits,
        "debounce_ms": debounce_ms,
        "diagnostics": counts.get("diagnostics", 0),
        "p50": statistics.median(latencies),
        "p95": percentile(latencies, 0.95),
        "max": max(latencies),
        "min": min(latencies),
        "analysis_p50": statistics.median([analysis_ms[v] for v in range(warmup + 2, version + 1) if v in analysis_ms] or [0.0]),
        "overhead_p50": statistics.median(overheads) if overheads else float("nan"),
        "overhead_p95": percentile(overheads, 0.95) if overheads else float("nan"),
    }


def baseline(lines: int) -> dict[str, float]:
    """The same file, in this process: bare ast.parse, bare astroid.parse, a full lint."""
    import ast

    import astroid

    from warp_ct.analyzer.engine import Linter

    text = generate(lines)
    out = {}
    for name, fn in [
        ("ast.parse", lambda: ast.parse(text)),
        ("astroid.parse", lambda: astroid.parse(text)),
        ("Linter.lint_text", (lambda linter: lambda: linter.lint_text("/tmp/warp_ct_bench/big_module.py", text))(Linter())),
    ]:
        fn()  # warm
        times = []
        for _ in range(5):
            start = time.perf_counter()
            fn()
            times.append((time.perf_counter() - start) * 1000.0)
        out[name] = statistics.median(times)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--edits", type=int, default=50)
    parser.add_argument("--debounce-ms", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args()
    result = asyncio.run(run(args.lines, args.edits, args.debounce_ms, args.warmup))
    base = baseline(args.lines)
    print(
        f"warp-ct LSP latency: {result['lines']}-line file, {result['diagnostics']} diagnostics, "
        f"{result['edits']} edits, debounce {result['debounce_ms']} ms"
    )
    print(
        f"didChange -> publishDiagnostics after the debounce: p50 {result['p50']:.1f} ms, "
        f"p95 {result['p95']:.1f} ms, min {result['min']:.1f} ms, max {result['max']:.1f} ms (goal: p95 <= 100 ms)"
    )
    print(
        f"  of which analysis on the worker: p50 {result['analysis_p50']:.1f} ms; server + transport overhead: "
        f"p50 {result['overhead_p50']:.1f} ms, p95 {result['overhead_p95']:.1f} ms"
    )
    print("  same file in-process (median of 5): " + ", ".join(f"{k} {v:.1f} ms" for k, v in base.items()))
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(f"  machine: {os.cpu_count()} CPUs" + (f", load average {load[0]:.1f}" if load else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
