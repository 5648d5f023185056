"""Time integrators, generic over the vector type; picked by name."""

from typing import Any

import warp as wp


# expect WCT007: World.step() launches this generic kernel with vec3 particles and then
# with vec2 tracers; no wp.overload declares them, so the vec2 instantiation joins the
# loaded module and builds it again.
@wp.kernel
def symplectic_euler(x: wp.array(dtype=Any), v: wp.array(dtype=Any), dt: float):  # expect: WCT007
    i = wp.tid()
    x[i] = x[i] + v[i] * dt


INTEGRATORS = {"euler": symplectic_euler}
