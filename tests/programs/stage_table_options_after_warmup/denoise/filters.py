"""Stencil kernels and the default table of stages a pipeline runs."""

import warp as wp


@wp.kernel
def box3(src: wp.array(dtype=float), strength: float, dst: wp.array(dtype=float)):
    i = wp.tid()
    n = src.shape[0]
    left = src[wp.max(i - 1, 0)]
    right = src[wp.min(i + 1, n - 1)]
    dst[i] = (1.0 - strength) * src[i] + strength * (left + src[i] + right) / 3.0


@wp.kernel
def sharpen(src: wp.array(dtype=float), strength: float, dst: wp.array(dtype=float)):
    i = wp.tid()
    n = src.shape[0]
    lap = src[wp.max(i - 1, 0)] + src[wp.min(i + 1, n - 1)] - 2.0 * src[i]
    dst[i] = src[i] - strength * lap


def default_stages():
    return [(box3, 0.5), (sharpen, 0.25), (box3, 0.25)]
