"""Batched worlds (mjlab's expand_model_fields shape): every field of a model, named in a
list, repeated per world by one generic kernel; each field's dtype is the model object's
attribute of that name."""

from typing import Any

import warp as wp

wp.set_module_options({"enable_backward": False})


# expect WCT007: no wp.overload declares the field dtypes; the first field (vec3) loads the
# module, then float32 and vec2 each add an instantiation and build the module again, whole.
@wp.kernel
def repeat(src: wp.array(dtype=Any), per_world: int, dst: wp.array(dtype=Any)):  # expect: WCT007
    i = wp.tid()
    dst[i] = src[i % per_world]


def tile(x: wp.array, nworld: int) -> wp.array:
    dst = wp.empty((nworld, x.shape[1]), dtype=x.dtype)
    wp.launch(repeat, dim=dst.size, inputs=[x.flatten(), x.shape[1]], outputs=[dst.flatten()])
    return dst


FIELDS = ("body_pos", "body_mass", "geom_size")


class World:
    def __init__(self, model, nworld: int, fields: tuple[str, ...] = FIELDS):
        for field in fields:
            setattr(self, field, tile(getattr(model, field), nworld))
