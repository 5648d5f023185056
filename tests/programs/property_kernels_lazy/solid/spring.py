"""A spring energy whose kernels are made on first use."""

import functools

import warp as wp


class Spring:
    def __init__(self, n: int, stiffness: float):
        self.k = stiffness
        self.x = wp.full(n, 2.0, dtype=float, device="cpu")
        self.out = wp.zeros(n, dtype=float, device="cpu")

    def fun(self):
        wp.launch(self.fun_kernel, dim=self.x.shape, inputs=[self.x, self.k], outputs=[self.out], device="cpu")

    def grad(self):
        wp.launch(self.grad_kernel, dim=self.x.shape, inputs=[self.x, self.k], outputs=[self.out], device="cpu")

    @functools.cached_property
    def fun_kernel(self):
        # silent: WCT007 — the first kernel of solid.spring joins it before any launch.
        @wp.kernel
        def kernel(x: wp.array(dtype=float), k: float, out: wp.array(dtype=float)):
            i = wp.tid()
            out[i] = 0.5 * k * x[i] * x[i]

        return kernel

    @functools.cached_property
    def grad_kernel(self):
        # main() calls fun() and then grad(): this property is first read after the launch of
        # fun's kernel loaded solid.spring, so the new kernel rebuilds the whole module.
        @wp.kernel
        def kernel(x: wp.array(dtype=float), k: float, out: wp.array(dtype=float)):  # expect: WCT007
            i = wp.tid()
            out[i] = k * x[i]

        return kernel
