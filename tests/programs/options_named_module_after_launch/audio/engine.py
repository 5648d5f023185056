"""The engine runs the filter chain on each block."""

import warp as wp

from audio import filters


class Engine:
    def __init__(self, block: int, device: str = "cpu"):
        self.out = wp.zeros(block, dtype=float, device=device)
        self.device = device

    def process(self, buf: wp.array) -> wp.array:
        wp.launch(filters.gain, dim=buf.shape, inputs=[buf, 0.8], device=self.device)
        wp.launch(filters.fir3, dim=buf.shape, inputs=[buf, self.out], device=self.device)
        return self.out
