"""Generic element-wise kernels, with their instantiations declared at import."""

from typing import Any

import warp as wp

wp.set_module_options({"enable_backward": False})


# silent: WCT007 — every dtype the package launches is declared below with wp.overload before
# any launch, so the module is complete when it is first built.
@wp.kernel
def add(x: wp.array(dtype=Any), y: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = x[i] + y[i]


for _dtype in (wp.float32, wp.float64, wp.vec3):
    wp.overload(add, {"x": wp.array(dtype=_dtype), "y": wp.array(dtype=_dtype), "out": wp.array(dtype=_dtype)})
