"""Shading kernels."""

import warp as wp


@wp.kernel
def shade(depth: wp.array(dtype=float), color: wp.array(dtype=wp.vec3), light: wp.vec3):
    i = wp.tid()
    color[i] = light * (1.0 - depth[i])


@wp.kernel
def fog(color: wp.array(dtype=wp.vec3), depth: wp.array(dtype=float), density: float):
    i = wp.tid()
    color[i] = color[i] * wp.exp(-density * depth[i])
