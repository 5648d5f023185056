"""Solver kernels."""

import warp as wp


@wp.kernel
def jacobi(x: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    n = x.shape[0]
    out[i] = 0.5 * (b[i] + 0.5 * (x[(i + n - 1) % n] + x[(i + 1) % n]))


@wp.kernel
def copy(src: wp.array(dtype=float), dst: wp.array(dtype=float)):
    i = wp.tid()
    dst[i] = src[i]
