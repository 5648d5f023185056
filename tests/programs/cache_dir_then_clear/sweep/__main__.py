"""Sweep damping rates and print the energy left after a few steps."""

import warp as wp

wp.config.enable_backward = False  # forward-only: set before any kernel module exists

from sweep.kernels import damp, energy  # noqa: E402
from sweep.setup import use_project_kernels  # noqa: E402


def main():
    use_project_kernels()
    wp.init()
    for rate in (0.1, 0.2, 0.4):
        x = wp.ones(64, dtype=float, device="cpu")
        for _ in range(4):
            wp.launch(damp, dim=64, inputs=[x, rate], device="cpu")
        out = wp.zeros(1, dtype=float, device="cpu")
        wp.launch(energy, dim=64, inputs=[x, out], device="cpu")
        print(f"rate {rate}: energy {float(out.numpy()[0]):.4f}")


if __name__ == "__main__":
    main()
