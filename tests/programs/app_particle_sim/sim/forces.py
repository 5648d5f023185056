"""Force kernels: one memoized factory, one made per world."""

import functools

import warp as wp


@functools.cache
def make_spring(k: float):
    # silent: WCT003 — memoized: the same kernel for the same stiffness on every step.
    @wp.kernel
    def spring(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), dt: float):
        i = wp.tid()
        v[i] = v[i] - x[i] * (k * dt)

    return spring


def make_drag(c: float):
    # silent: WCT003 — called from World.__init__, once per world.
    @wp.kernel
    def drag(v: wp.array(dtype=wp.vec3)):
        i = wp.tid()
        v[i] = v[i] * (1.0 - c)

    return drag
