"""Kernels of the cloth solver."""

import warp as wp


@wp.kernel
def apply_gravity(v: wp.array(dtype=wp.vec3), g: wp.vec3, dt: float):
    i = wp.tid()
    v[i] = v[i] + g * dt


def make_integrate(dt: float):
    # expect WCT003: `dt` is captured as a constant and differs on every Solver.step(), so
    # each step gives this file's module a new hash and builds it again.
    @wp.kernel
    def integrate(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3)):  # expect: WCT003
        i = wp.tid()
        x[i] = x[i] + v[i] * dt

    return integrate
