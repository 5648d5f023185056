"""Kernels precompiled at startup."""

import warp as wp


@wp.kernel
def integrate(x: wp.array(dtype=float), v: wp.array(dtype=float), dt: float):
    i = wp.tid()
    x[i] = x[i] + v[i] * dt


@wp.kernel
def damp(v: wp.array(dtype=float), k: float):
    i = wp.tid()
    v[i] = v[i] * k
