"""Operator objects: a base class keeps the kernels in ``_construct_warp``; subclasses launch them."""

import warp as wp

from filters.kernels import get_kernels


class Operator:
    def __init__(self, dtype):
        self.dtype = dtype
        self._construct_warp()

    def _construct_warp(self):
        self.kernels = get_kernels()


class Scale(Operator):
    def __call__(self, x, s):
        k = self.kernels
        wp.launch(k.scale, dim=x.shape, inputs=[x, self.dtype(s)])
        return x


class Shift:
    """Holds the kernel it is given."""

    def __init__(self, kernel, dtype):
        self.kernel = kernel
        self.dtype = dtype

    def __call__(self, x, s):
        wp.launch(self.kernel, dim=x.shape, inputs=[x, self.dtype(s)])
        return x


def shift_for(dtype):
    return Shift(get_kernels().shift, dtype)
