"""The pipeline keeps its stage kernels and launches them on every frame."""

import warp as wp

from imgpipe.stages import make_clamp, make_gain, make_offset


class Pipeline:
    def __init__(self, gain: float, offset: float, device: str = "cpu"):
        self.device = device
        # silent: WCT003 — the factories run once per Pipeline (from __init__), not per frame.
        self.stages = [make_gain(gain), make_offset(offset), make_clamp(0.0, 1.0)]

    def run(self, img: wp.array):
        for kernel in self.stages:
            wp.launch(kernel, dim=img.shape, inputs=[img], device=self.device)
        return img
