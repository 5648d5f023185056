"""Generic element-wise kernels."""

from typing import Any

import warp as wp

wp.set_module_options({"enable_backward": False})


# expect WCT007: no wp.overload declares the dtypes up front, so each new dtype launched after
# the module's first load (float64, then vec3) adds an instantiation and rebuilds the module.
@wp.kernel
def add(x: wp.array(dtype=Any), y: wp.array(dtype=Any), out: wp.array(dtype=Any)):  # expect: WCT007
    i = wp.tid()
    out[i] = x[i] + y[i]
