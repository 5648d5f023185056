"""A filter stage: the base class launches the kernels a subclass hands to it."""

import warp as wp

# forward-only: set for this module before its first kernel (nothing here is differentiated)
wp.set_module_options({"enable_backward": False})


@wp.kernel
def clear(x: wp.array(dtype=float)):
    x[wp.tid()] = 0.0


class Stage:
    def __init__(self, *, kernels):
        self._kernels = kernels

    def run(self, x):
        # The first run loads this module: the kernel is one the subclass passed to
        # `super().__init__()`.
        wp.launch(self._kernels[x.dtype], dim=x.shape, inputs=[x])


class Clear(Stage):
    def __init__(self):
        super().__init__(kernels={wp.float32: clear})


class Gain:
    def __init__(self, x):
        self.x = x
        self.kernels = []

    def add(self, gain: float):
        # silent: WCT007 — reported at the call of `add()`, made after the first run.
        @wp.kernel
        def scale(x: wp.array(dtype=float)):
            x[wp.tid()] = x[wp.tid()] + gain

        self.kernels.append(scale)

    def run(self):
        for kernel in self.kernels:
            wp.launch(kernel, dim=self.x.shape, inputs=[self.x])
