"""Generic element-wise kernels."""

from typing import Any

import warp as wp

wp.set_module_options({"enable_backward": False})


# expect WCT007: the dtype comes from the data (warp_dtype picks float32 or float64), so the
# float64 call after the float32 one adds an instantiation and rebuilds the module.
@wp.kernel
def double(x: wp.array(dtype=Any), out: wp.array(dtype=Any)):  # expect: WCT007
    i = wp.tid()
    out[i] = x[i] + x[i]
