"""The kernels the sweep runs."""

import warp as wp


@wp.kernel
def damp(x: wp.array(dtype=float), rate: float):
    i = wp.tid()
    x[i] = x[i] * (1.0 - rate)


@wp.kernel
def energy(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, 0, 0.5 * x[i] * x[i])
