"""Precompile, then run."""

import warp as wp

wp.config.enable_backward = False  # forward-only: set before any kernel module exists

from warmup.kernels import damp, integrate  # noqa: E402
from warmup.precompile import precompile_all  # noqa: E402


def main():
    wp.init()
    precompile_all()
    x = wp.zeros(32, dtype=float, device="cpu")
    v = wp.ones(32, dtype=float, device="cpu")
    for _ in range(3):
        wp.launch(damp, dim=32, inputs=[v, 0.9], device="cpu")
        wp.launch(integrate, dim=32, inputs=[x, v, 0.1], device="cpu")
    print("x", float(x.numpy()[0]))


if __name__ == "__main__":
    main()
