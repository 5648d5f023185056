"""Each run gets its own kernel cache, removed afterwards."""

import tempfile
import time

import warp as wp

_scratch = None


def isolate_kernel_cache():
    global _scratch
    _scratch = tempfile.TemporaryDirectory(prefix="bench-kernels-")
    # expect WCT008: a new temporary directory per run: nothing compiled in one run is found
    # by the next, so every run compiles from scratch.
    wp.config.kernel_cache_dir = _scratch.name  # expect: WCT008


def timed(label, fn, repeat=3):
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    wp.synchronize()
    print(f"{label}: {(time.perf_counter() - start) / repeat * 1e3:.3f} ms")
