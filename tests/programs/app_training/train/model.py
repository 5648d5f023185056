"""Linear layers; everything here is differentiated through a wp.Tape."""

import numpy as np
import warp as wp


# silent: WCT010 — main() records forward() on a wp.Tape and calls tape.backward(): these
# kernels' adjoints run.
@wp.kernel
def linear(x: wp.array2d(dtype=float), w: wp.array2d(dtype=float), b: wp.array(dtype=float), y: wp.array2d(dtype=float)):
    i, j = wp.tid()
    acc = b[j]
    for k in range(x.shape[1]):
        acc += x[i, k] * w[k, j]
    y[i, j] = acc


class Linear:
    def __init__(self, n_in: int, n_out: int, slope: float = 0.1, device: str = "cpu"):
        rng = np.random.default_rng(n_in + 10 * n_out)
        self.w = wp.array(0.5 * rng.standard_normal((n_in, n_out)).astype(np.float32), device=device, requires_grad=True)
        self.b = wp.zeros(n_out, dtype=float, device=device, requires_grad=True)
        self.slope = slope
        self.device = device
        self._create_kernels()

    def _create_kernels(self):
        slope = self.slope

        # silent: WCT003 — made once per layer, from __init__; both layers use the same slope.
        @wp.kernel
        def leaky(y: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
            i, j = wp.tid()
            out[i, j] = wp.max(y[i, j], slope * y[i, j])

        self.activation = leaky

    def parameters(self):
        return [self.w, self.b]

    def forward(self, x: wp.array, activate: bool = True) -> wp.array:
        y = wp.zeros((x.shape[0], self.w.shape[1]), dtype=float, device=self.device, requires_grad=True)
        wp.launch(linear, dim=y.shape, inputs=[x, self.w, self.b, y], device=self.device)
        if not activate:
            return y
        out = wp.zeros_like(y, requires_grad=True)
        wp.launch(self.activation, dim=y.shape, inputs=[y, out], device=self.device)
        return out


class MLP:
    def __init__(self, sizes, device: str = "cpu"):
        self.layers = [Linear(a, b, device=device) for a, b in zip(sizes[:-1], sizes[1:])]

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]

    def __call__(self, x: wp.array) -> wp.array:
        for index, layer in enumerate(self.layers):
            x = layer.forward(x, activate=index < len(self.layers) - 1)
        return x
