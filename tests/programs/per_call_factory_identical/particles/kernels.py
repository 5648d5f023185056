"""Drag kernel factory; the coefficient is a fixed property of the medium."""

import warp as wp

AIR_DRAG = 0.02


def make_drag(coefficient: float):
    # expect WCT003: advance() runs once per frame and re-declares this kernel each time; the
    # captured coefficient never changes, so nothing is rebuilt, but every frame pays the
    # declaration and the launch of a new kernel object (~0.3-0.4 ms on CPU), about 30x the
    # launch of a kept kernel (~0.01 ms).
    @wp.kernel
    def drag(v: wp.array(dtype=wp.vec3)):  # expect: WCT003
        i = wp.tid()
        v[i] = v[i] * (1.0 - coefficient)

    return drag


@wp.kernel
def move(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), dt: float):
    i = wp.tid()
    x[i] = x[i] + v[i] * dt
