"""The simulation object launches the advection kernels."""

import warp as wp

from fluid.kernels import advect, copy


class Simulation:
    def __init__(self, n: int, device: str = "cpu"):
        self.q = wp.full(n, 1.0, dtype=float, device=device)
        self.tmp = wp.zeros(n, dtype=float, device=device)
        self.device = device

    def run(self, steps: int, courant: float = 0.5):
        for _ in range(steps):
            wp.launch(advect, dim=self.q.shape, inputs=[self.q, self.tmp, courant], device=self.device)
            wp.launch(copy, dim=self.q.shape, inputs=[self.tmp, self.q], device=self.device)
