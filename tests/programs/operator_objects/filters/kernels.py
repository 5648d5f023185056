"""Generic kernels, handed out as a named tuple by a cached factory."""

import functools
from collections import namedtuple
from typing import Any

import warp as wp

wp.set_module_options({"enable_backward": False})

FilterKernels = namedtuple("FilterKernels", ["scale", "shift"])


# expect WCT007: reached only through the named tuple an operator object keeps on ``self``;
# launched with float32 arrays, then float64 ones: the new instantiation rebuilds the module.
@wp.kernel
def scale(x: wp.array(dtype=Any), s: Any):  # expect: WCT007
    i = wp.tid()
    x[i] = x[i] * s


# expect WCT007: the same, through the kernel a ``Shift`` object is constructed with.
@wp.kernel
def shift(x: wp.array(dtype=Any), s: Any):  # expect: WCT007
    i = wp.tid()
    x[i] = x[i] + s


@functools.cache
def get_kernels():
    return FilterKernels(scale, shift)
