"""A two-stage copy through scratch buffers made by a list comprehension and picked by index:
the last stage writes float64."""

from typing import Any

import warp as wp

wp.set_module_options({"enable_backward": False})


# expect WCT007: the first stage copies float32 into float32 (the module's first build); the
# second copies float32 into the float64 result, a new instantiation: the module is built again.
@wp.kernel
def _stage(src: wp.array(dtype=Any), dst: wp.array(dtype=Any)):  # expect: WCT007
    i = wp.tid()
    dst[i] = type(dst[i])(src[i])


@wp.kernel
def _clear(x: wp.array(dtype=wp.float32)):
    x[wp.tid()] = 0.0


def staged_copy(x: wp.array) -> wp.array:
    scratch = [wp.zeros(x.shape[0], dtype=wp.float32) for _ in range(2)]
    out = wp.zeros(x.shape[0], dtype=wp.float64)
    wp.launch(_stage, dim=x.shape[0], inputs=[scratch[0]], outputs=[scratch[1]])
    wp.launch(_stage, dim=x.shape[0], inputs=[scratch[1]], outputs=[out])
    wp.launch(_clear, dim=x.shape[0], inputs=[scratch[0]])
    return out
