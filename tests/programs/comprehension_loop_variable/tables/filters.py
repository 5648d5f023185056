"""Generic filters, typed for float32 through the shared table builder."""

from typing import Any

import warp as wp

from tables.ops import typed

# forward-only: set for this module before its first kernel (nothing here is differentiated)
wp.set_module_options({"enable_backward": False})


@wp.kernel
def gain(a: wp.array(dtype=Any)):
    a[wp.tid()] = a[wp.tid()] * a.dtype(2.0)


@wp.kernel
def bias(a: wp.array(dtype=Any)):
    a[wp.tid()] = a[wp.tid()] + a.dtype(1.0)


F32 = typed((("gain", gain), ("bias", bias)), wp.float32)


def apply(name, a):
    # The first call loads this module: the kernel is a row of the typed table.
    wp.launch(F32[name], dim=a.shape, inputs=[a])


class Clamp:
    def __init__(self, a):
        self.a = a
        self.kernels = []

    def add(self, top: float):
        # silent: WCT007 — reported at the call of `add()`, made after the first filter ran.
        @wp.kernel
        def clamp(a: wp.array(dtype=float)):
            a[wp.tid()] = wp.min(a[wp.tid()], top)

        self.kernels.append(clamp)

    def run(self):
        for k in self.kernels:
            wp.launch(k, dim=self.a.shape, inputs=[self.a])
