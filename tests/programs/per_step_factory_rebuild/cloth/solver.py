"""The solver advances the cloth by one (adaptive) step per call."""

import warp as wp

from cloth.kernels import apply_gravity, make_integrate


class Solver:
    def __init__(self, count: int, device: str = "cpu"):
        self.device = device
        self.x = wp.zeros(count, dtype=wp.vec3, device=device)
        self.v = wp.zeros(count, dtype=wp.vec3, device=device)
        self.gravity = wp.vec3(0.0, -9.8, 0.0)

    def step(self, dt: float):
        wp.launch(apply_gravity, dim=self.v.shape, inputs=[self.v, self.gravity, dt], device=self.device)
        integrate = make_integrate(dt)
        wp.launch(integrate, dim=self.x.shape, inputs=[self.x, self.v], device=self.device)
