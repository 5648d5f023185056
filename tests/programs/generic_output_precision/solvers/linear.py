"""A linear solver that works in its own precision (dismech-newton's CudssSolver shape): the
right-hand side is converted into the solver's buffers and the solution back out, by one
generic kernel whose types arrive through ``outputs=`` and through buffers made by a
generator."""

from typing import Any

import warp as wp

wp.set_module_options({"enable_backward": False})


class Solver:
    """``single``: solve in float32 (the buffers' dtype), else in float64."""

    def __init__(self, n: int, single: bool = False):
        dtype = wp.float32 if single else wp.float64
        self._b, self._x = (wp.zeros(n, dtype=dtype) for _ in range(2))

    def solve(self, b: wp.array, x: wp.array) -> None:
        wp.launch(_convert, dim=b.shape[0], inputs=[b], outputs=[self._b])
        wp.launch(_convert, dim=b.shape[0], inputs=[self._b], outputs=[self._x])
        wp.launch(_convert, dim=b.shape[0], inputs=[self._x], outputs=[x])


# expect WCT007: no wp.overload declares _convert's types; the single-precision solve converts
# the float64 right-hand side into its float32 buffers (the module's first build), then float32
# into float32 (a new instantiation: the module is built again, whole); the float64 solver adds
# float64 into float64 (built again).
@wp.kernel
def _convert(src: wp.array(dtype=Any), dst: wp.array(dtype=Any)):  # expect: WCT007
    i = wp.tid()
    dst[i] = type(dst[i])(src[i])
