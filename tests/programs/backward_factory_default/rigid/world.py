"""The world owns the state and the integrator made for its damping."""

import warp as wp

from rigid.integrator import make_integrator, push


class World:
    def __init__(self, n: int, damping: float = 0.99, device: str = "cpu"):
        self.x = wp.zeros(n, dtype=wp.vec3, device=device)
        self.v = wp.zeros(n, dtype=wp.vec3, device=device)
        self.integrate = make_integrator(damping)
        self.device = device

    def step(self, dt: float):
        wp.launch(push, dim=self.v.shape, inputs=[self.v, wp.vec3(0.0, 1.0, 0.0)], device=self.device)
        wp.launch(self.integrate, dim=self.x.shape, inputs=[self.x, self.v, dt], device=self.device)
