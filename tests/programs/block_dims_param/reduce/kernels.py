"""Reduction kernels sharing this file's module."""

import warp as wp

wp.set_module_options({"enable_backward": False})


@wp.kernel
def partial_sums(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, 0, x[i])


@wp.kernel
def scale(x: wp.array(dtype=float), s: float):
    i = wp.tid()
    x[i] = x[i] * s


@wp.kernel
def square(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] * x[i]
