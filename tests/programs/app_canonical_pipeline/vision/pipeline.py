"""The pipeline: per-frame stages, then post effects."""

import warp as wp

from vision import postfx
from vision.config import Settings
from vision.stages import make_black_level, make_blend, make_exposure, make_threshold


class Pipeline:
    def __init__(self, settings: Settings, device: str = "cpu"):
        self.settings = settings
        self.device = device
        self.mask = wp.zeros(settings.width * settings.height, dtype=float, device=device)

    def run(self, img: wp.array) -> wp.array:
        s = self.settings
        n = img.shape[0]
        wp.launch(make_exposure(s.exposure), dim=n, inputs=[img], device=self.device)
        wp.launch(make_black_level(s.black_level), dim=n, inputs=[img], device=self.device)
        wp.launch(make_threshold(s.threshold), dim=n, inputs=[img, self.mask], device=self.device)
        wp.launch(make_blend(0.25), dim=n, inputs=[img, self.mask], device=self.device)
        wp.launch(postfx.tonemap, dim=n, inputs=[img], device=self.device)
        wp.launch(postfx.vignette, dim=n, inputs=[img, s.width, 0.5], device=self.device)
        return img
