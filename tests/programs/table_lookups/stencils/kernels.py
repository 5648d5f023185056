"""Generic kernels filed in tables by kind and name."""

from typing import Any, NamedTuple

import warp as wp

wp.set_module_options({"enable_backward": False})


# expect WCT007: reached only through ``_TABLES.get(kind, {}).get(name)``; launched with
# float32 arrays, then float64 ones: the new instantiation rebuilds the module.
@wp.kernel
def scale(x: wp.array(dtype=Any), s: Any):  # expect: WCT007
    i = wp.tid()
    x[i] = x[i] * s


# expect WCT007: the same, through the named tuple a typed factory returns.
@wp.kernel
def clamp(x: wp.array(dtype=Any), hi: Any):  # expect: WCT007
    i = wp.tid()
    x[i] = wp.min(x[i], hi)


_TABLES: dict = {"affine": {}}
for _name, _kernel in (("scale", scale),):
    _TABLES["affine"][_name] = _kernel


def lookup(kind, name):
    """The kernel filed under ``kind`` and ``name``, or None."""
    return _TABLES.get(kind, {}).get(name)


class Bundle(NamedTuple):
    clamp: wp.Kernel
    scale: wp.Kernel


def bundle_for(kind: str) -> Bundle:
    """The kernels of one kind, as a named tuple."""
    return Bundle(clamp=clamp, scale=lookup(kind, "scale"))
