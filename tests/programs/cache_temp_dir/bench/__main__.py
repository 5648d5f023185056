"""Benchmark two kernels."""

import warp as wp

wp.config.enable_backward = False  # forward-only: set before any kernel module exists

from bench.harness import isolate_kernel_cache, timed  # noqa: E402
from bench.kernels import dot_partial, saxpy  # noqa: E402


def main():
    isolate_kernel_cache()
    wp.init()
    x = wp.ones(1024, dtype=float, device="cpu")
    y = wp.ones(1024, dtype=float, device="cpu")
    out = wp.zeros(1, dtype=float, device="cpu")
    timed("saxpy", lambda: wp.launch(saxpy, dim=1024, inputs=[x, y, 2.0], device="cpu"))
    timed("dot", lambda: wp.launch(dot_partial, dim=1024, inputs=[x, y, out], device="cpu"))


if __name__ == "__main__":
    main()
