"""A clean program: options before the first load, kernels at module scope, one build."""

import sys

import warp as wp

wp.set_module_options({"enable_backward": False})


@wp.kernel
def axpy(x: wp.array(dtype=float), y: wp.array(dtype=float), alpha: float):
    i = wp.tid()
    y[i] = alpha * x[i] + y[i]


@wp.kernel
def scale(y: wp.array(dtype=float), s: float):
    i = wp.tid()
    y[i] = y[i] * s


if __name__ == "__main__":
    # optional: number of loop iterations (many launches with varying dims)
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    x = wp.ones(64, dtype=float, device="cpu")
    y = wp.zeros(64, dtype=float, device="cpu")
    for step in range(steps):
        n = 1 + step % 64
        wp.launch(axpy, dim=n, inputs=[x, y, 0.5], device="cpu")
        wp.launch(scale, dim=n, inputs=[y, 0.9], device="cpu")
    wp.synchronize()
