"""Advection kernels."""

import warp as wp


@wp.kernel
def advect(q: wp.array(dtype=float), out: wp.array(dtype=float), c: float):
    i = wp.tid()
    n = q.shape[0]
    out[i] = q[i] - c * (q[i] - q[(i + n - 1) % n])


@wp.kernel
def copy(src: wp.array(dtype=float), dst: wp.array(dtype=float)):
    i = wp.tid()
    dst[i] = src[i]
