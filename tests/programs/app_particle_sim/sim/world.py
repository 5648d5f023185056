"""The world: particles in 3-D and passive tracers in 2-D."""

import numpy as np
import warp as wp

from sim.contacts import count_below, make_ground_contact
from sim.forces import make_drag, make_spring
from sim.integrators import INTEGRATORS


class World:
    def __init__(self, n: int, scheme: str = "euler", device: str = "cpu"):
        self.device = device
        rng = np.random.default_rng(1)
        self.x = wp.array(rng.random((n, 3), dtype=np.float32), dtype=wp.vec3, device=device)
        self.v = wp.zeros(n, dtype=wp.vec3, device=device)
        self.tx = wp.zeros(n, dtype=wp.vec2, device=device)
        self.tv = wp.full(n, wp.vec2(0.1, 0.0), dtype=wp.vec2, device=device)
        self.integrate = INTEGRATORS[scheme]
        self.drag = make_drag(0.01)
        self.restitution = 0.9
        self.below = wp.zeros(1, dtype=int, device=device)

    def step(self, dt: float, block_dims=(64, 128)):
        spring = make_spring(10.0)
        n = self.x.shape[0]
        wp.launch(spring, dim=n, inputs=[self.x, self.v, dt], block_dim=block_dims[0], device=self.device)
        # expect WCT009 (GPU only): sim.forces was launched at block_dims[0] = 64 just above and
        # now at 128: on a CUDA device the whole module is compiled once per block_dim.
        wp.launch(self.drag, dim=n, inputs=[self.v], block_dim=block_dims[1], device=self.device)  # expect: WCT009
        wp.launch(self.integrate, dim=n, inputs=[self.x, self.v, dt], device=self.device)
        wp.launch(self.integrate, dim=n, inputs=[self.tx, self.tv, dt], device=self.device)
        wp.launch(count_below, dim=n, inputs=[self.x, self.below], device=self.device)
        wp.launch(make_ground_contact(self.restitution), dim=n, inputs=[self.x, self.v], device=self.device)
        self.restitution *= 0.95
