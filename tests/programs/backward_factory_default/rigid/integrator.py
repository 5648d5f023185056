"""The integrator kernel factory."""

import warp as wp


@wp.kernel
def push(v: wp.array(dtype=wp.vec3), f: wp.vec3):
    i = wp.tid()
    v[i] = v[i] + f


# expect WCT010 at the default: the kernel asks for backward code itself, overriding the
# application's enable_backward=False, and nothing in the program differentiates it.
def make_integrator(damping: float, enable_backward: bool = True):  # expect: WCT010
    @wp.kernel(enable_backward=enable_backward)
    def integrate(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), dt: float):
        i = wp.tid()
        v[i] = v[i] * damping
        x[i] = x[i] + v[i] * dt

    return integrate
