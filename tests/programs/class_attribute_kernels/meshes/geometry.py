"""A base geometry and a mesh: kernels defined in the class bodies, launched as class attributes."""

from typing import Any

import warp as wp

wp.set_module_options({"enable_backward": False})


class Geometry:
    # expect WCT007: a generic kernel of the class body, launched as ``self._fill`` by every
    # geometry with the dtype of its positions: the float64 launch comes after the module's
    # first load (float32) and adds an instantiation, so the module is built again.
    @staticmethod
    @wp.kernel
    def _fill(x: wp.array(dtype=Any), value: Any):  # expect: WCT007
        x[wp.tid()] = value

    def __init__(self, positions: wp.array):
        self.positions = positions

    def reset(self, value):
        wp.launch(self._fill, dim=self.positions.shape, inputs=[self.positions, self.positions.dtype(value)])


class Mesh(Geometry):
    # expect WCT007: the same, launched as ``Mesh._scale`` from a method of the subclass.
    @wp.kernel
    def _scale(x: wp.array(dtype=Any), s: Any):  # expect: WCT007
        i = wp.tid()
        x[i] = x[i] * s

    def scale(self, s):
        wp.launch(Mesh._scale, dim=self.positions.shape, inputs=[self.positions, self.positions.dtype(s)])
