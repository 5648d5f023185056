"""A field simulation whose step asks the factories for its kernels every time."""

import warp as wp

from fields.kernels import get_diffuse, make_decay, make_floor, make_source


class FieldSim:
    def __init__(self, n: int, device: str = "cpu"):
        self.f = wp.zeros(n, dtype=float, device=device)
        self.tmp = wp.zeros(n, dtype=float, device=device)
        self.device = device

    def step(self):
        # Every kernel of fields.kernels exists before the first launch of the first step,
        # so the module is built once (no define/launch interleaving).
        source, diffuse = make_source(0.5), get_diffuse(0.25)
        decay, floor = make_decay(0.1), make_floor(0.0)
        wp.launch(source, dim=self.f.shape, inputs=[self.f], device=self.device)
        wp.launch(diffuse, dim=self.f.shape, inputs=[self.f, self.tmp], device=self.device)
        self.f, self.tmp = self.tmp, self.f
        wp.launch(decay, dim=self.f.shape, inputs=[self.f], device=self.device)
        wp.launch(floor, dim=self.f.shape, inputs=[self.f], device=self.device)
