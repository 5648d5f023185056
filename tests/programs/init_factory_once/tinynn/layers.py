"""Dense layers whose kernels are made per layer object."""

import numpy as np
import warp as wp


@wp.kernel
def dense(x: wp.array(dtype=float), w: wp.array2d(dtype=float), b: wp.array(dtype=float), y: wp.array(dtype=float)):
    j = wp.tid()
    acc = b[j]
    for i in range(x.shape[0]):
        acc += w[j, i] * x[i]
    y[j] = acc


class Dense:
    def __init__(self, n_in: int, n_out: int, leak: float = 0.01, device: str = "cpu"):
        rng = np.random.default_rng(n_in * 100 + n_out)
        self.w = wp.array(rng.standard_normal((n_out, n_in)).astype(np.float32), device=device)
        self.b = wp.zeros(n_out, dtype=float, device=device)
        self.y = wp.zeros(n_out, dtype=float, device=device)
        self.leak = leak
        self.device = device
        self._create_kernels()

    def _create_kernels(self):
        leak = self.leak

        # silent: WCT003 — _create_kernels() runs once per layer, from __init__; both layers
        # use the same leak, so the second declaration is identical and reuses the build.
        @wp.kernel
        def leaky_relu(y: wp.array(dtype=float)):
            j = wp.tid()
            y[j] = wp.max(y[j], leak * y[j])

        self.activation = leaky_relu

    def __call__(self, x: wp.array) -> wp.array:
        wp.launch(dense, dim=self.y.shape, inputs=[x, self.w, self.b, self.y], device=self.device)
        wp.launch(self.activation, dim=self.y.shape, inputs=[self.y], device=self.device)
        return self.y
