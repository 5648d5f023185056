"""A field simulation whose step asks the memoized factories for each kernel as it launches it."""

import warp as wp

from fields.kernels import get_diffuse, make_decay, make_floor, make_source


class FieldSim:
    def __init__(self, n: int, device: str = "cpu"):
        self.f = wp.zeros(n, dtype=float, device=device)
        self.tmp = wp.zeros(n, dtype=float, device=device)
        self.device = device

    def step(self):
        # silent: WCT007 — the first kernel of fields.kernels joins it before any launch.
        wp.launch(make_source(0.5), dim=self.f.shape, inputs=[self.f], device=self.device)
        # expect WCT007 (three times): on the first step each factory defines its kernel into
        # fields.kernels after the previous launch loaded it, so the module is built again;
        # asking for all kernels before the first launch builds it once.
        wp.launch(get_diffuse(0.25), dim=self.f.shape, inputs=[self.f, self.tmp], device=self.device)  # expect: WCT007
        self.f, self.tmp = self.tmp, self.f
        wp.launch(make_decay(0.1), dim=self.f.shape, inputs=[self.f], device=self.device)  # expect: WCT007
        wp.launch(make_floor(0.0), dim=self.f.shape, inputs=[self.f], device=self.device)  # expect: WCT007
