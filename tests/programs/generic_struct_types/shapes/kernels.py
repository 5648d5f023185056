"""One generic kernel per measure, taking any shape struct."""

from typing import Any

import warp as wp

wp.set_module_options({"enable_backward": False})


@wp.struct
class Sphere:
    radius: float


@wp.struct
class Box:
    half: wp.vec3


@wp.func
def volume(s: Sphere) -> float:
    return 4.0 / 3.0 * 3.14159 * s.radius * s.radius * s.radius


@wp.func
def volume(b: Box) -> float:
    return 8.0 * b.half[0] * b.half[1] * b.half[2]


@wp.func
def area(s: Sphere) -> float:
    return 4.0 * 3.14159 * s.radius * s.radius


@wp.func
def area(b: Box) -> float:
    return 8.0 * (b.half[0] * b.half[1] + b.half[1] * b.half[2] + b.half[0] * b.half[2])


# expect WCT007: no wp.overload declares the struct types, so the Box launch after the Sphere
# launch loaded the module adds an instantiation and rebuilds the module.
@wp.kernel
def total_volume(shape: Any, out: wp.array(dtype=float)):  # expect: WCT007
    out[wp.tid()] = volume(shape)


# silent: WCT007 — both struct types are declared with wp.overload below, so they are part of
# the module's first build.
@wp.kernel
def total_area(shape: Any, out: wp.array(dtype=float)):
    out[wp.tid()] = area(shape)


wp.overload(total_area, {"shape": Sphere, "out": wp.array(dtype=float)})
wp.overload(total_area, {"shape": Box, "out": wp.array(dtype=float)})
