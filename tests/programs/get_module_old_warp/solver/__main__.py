"""Solve a small system."""

import warp as wp

from solver import kernels
from solver.options import fast_math, fewer_unrolls, forward_only


def main():
    forward_only()
    fewer_unrolls()
    fast_math()
    wp.init()
    x = wp.zeros(16, dtype=float, device="cpu")
    b = wp.ones(16, dtype=float, device="cpu")
    tmp = wp.zeros(16, dtype=float, device="cpu")
    for _ in range(10):
        wp.launch(kernels.jacobi, dim=16, inputs=[x, b, tmp], device="cpu")
        wp.launch(kernels.copy, dim=16, inputs=[tmp, x], device="cpu")
    print("x", float(x.numpy()[0]))


if __name__ == "__main__":
    main()
