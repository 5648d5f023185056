"""A benchmark that throws the kernel cache away on every run (WCT008)."""

import tempfile
import time

import warp as wp

wp.clear_kernel_cache()  # every run, and every other Warp program, starts cold
wp.config.kernel_cache_dir = tempfile.mkdtemp(prefix="warp-")  # a cache nobody reads again


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


if __name__ == "__main__":
    n = 1 << 16
    x = wp.ones(n, dtype=float, device="cpu")
    y = wp.zeros(n, dtype=float, device="cpu")
    start = time.perf_counter()
    wp.launch(saxpy, dim=n, inputs=[x, y, 2.0], device="cpu")
    wp.synchronize()
    print(f"first launch: {time.perf_counter() - start:.3f} s")
