"""Geometry kernels under check."""

import warp as wp


@wp.kernel
def lengths(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.length(v[i])


@wp.kernel
def normalize(v: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    v[i] = wp.normalize(v[i])
