"""A smoother that blurs by the radius each call asks for."""

import warp as wp

from smooth.kernels import make_blur, make_scale


class Smoother:
    def __init__(self, count: int, device: str = "cpu"):
        self.device = device
        self.src = wp.full(count, 1.0, dtype=float, device=device)
        self.dst = wp.zeros(count, dtype=float, device=device)
        self.scale = make_scale(2.0)

    def apply(self, radius: int):
        blur = make_blur(radius)
        wp.launch(blur, dim=self.src.shape, inputs=[self.src, self.dst], device=self.device)
        wp.launch(self.scale, dim=self.dst.shape, inputs=[self.dst], device=self.device)
        return self.dst
