"""Gravity: kernels made by cached properties too, but all read in __init__."""

import functools

import warp as wp


class Gravity:
    def __init__(self, n: int, g: float = 9.8):
        self.g = g
        self.x = wp.full(n, 1.0, dtype=float, device="cpu")
        self.out = wp.zeros(n, dtype=float, device="cpu")
        # Every kernel exists before the first launch: solid.gravity is built once.
        self.fun_kernel
        self.grad_kernel
        self.hess_kernel

    def fun(self):
        wp.launch(self.fun_kernel, dim=self.x.shape, inputs=[self.x, self.g], outputs=[self.out], device="cpu")

    def grad(self):
        wp.launch(self.grad_kernel, dim=self.x.shape, inputs=[self.x, self.g], outputs=[self.out], device="cpu")

    def hess(self):
        wp.launch(self.hess_kernel, dim=self.x.shape, inputs=[self.x, self.g], outputs=[self.out], device="cpu")

    @functools.cached_property
    def fun_kernel(self):
        # silent: WCT007 — read in __init__, before any kernel of solid.gravity is launched.
        @wp.kernel
        def kernel(x: wp.array(dtype=float), g: float, out: wp.array(dtype=float)):
            i = wp.tid()
            out[i] = g * x[i]

        return kernel

    @functools.cached_property
    def grad_kernel(self):
        @wp.kernel
        def kernel(x: wp.array(dtype=float), g: float, out: wp.array(dtype=float)):
            i = wp.tid()
            out[i] = g

        return kernel

    @functools.cached_property
    def hess_kernel(self):
        @wp.kernel
        def kernel(x: wp.array(dtype=float), g: float, out: wp.array(dtype=float)):
            i = wp.tid()
            out[i] = 0.0

        return kernel
