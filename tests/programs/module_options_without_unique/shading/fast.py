"""A fast-math variant of the shading kernel."""

import warp as wp


# expect WCT005 (error): module_options= needs module="unique"; Warp raises ValueError here.
@wp.kernel(module_options={"fast_math": True})  # expect: WCT005:error
def shade_fast(n: wp.array(dtype=wp.vec3), out: wp.array(dtype=float), light: wp.vec3):
    i = wp.tid()
    out[i] = wp.max(wp.dot(n[i], light), 0.0)
