"""Laplacian smoothing on a ring of vertices."""

import warp as wp


@wp.kernel
def smooth(p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3), w: float):
    i = wp.tid()
    n = p.shape[0]
    avg = (p[(i + n - 1) % n] + p[(i + 1) % n]) * 0.5
    out[i] = p[i] + w * (avg - p[i])


@wp.kernel
def copy(src: wp.array(dtype=wp.vec3), dst: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    dst[i] = src[i]
