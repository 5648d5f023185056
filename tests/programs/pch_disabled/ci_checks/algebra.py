"""Algebra kernels under check."""

import warp as wp


@wp.kernel
def axpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def fill(x: wp.array(dtype=float), value: float):
    x[wp.tid()] = value
