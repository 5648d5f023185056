"""A grading pipeline: each stage is ((kernel, block_dim), amount), run by one method."""

import warp as wp

from grading import kernels


class Pipeline:
    def __init__(self, device: str):
        # silent: WCT009 — `256 if "cuda" in device else 1` is one block_dim per device, the
        # same 256 as the other stages on CUDA.
        wide = 256 if "cuda" in device else 1
        self.device = device
        self.stages = [
            ((kernels.lift, wide), 0.1),
            ((kernels.gain, 256), 1.5),
            ((kernels.clamp, 64), 1.0),
        ]

    def _run_stage(self, spec, img, amount):
        kernel, block_dim = spec
        # expect WCT009: the stage table gives this launch block_dims 256 and 64 for kernels of
        # one module: on CUDA, grading.kernels is built once per block_dim, all 3 kernels each time.
        wp.launch(kernel, dim=img.shape, inputs=[img, amount], block_dim=block_dim, device=self.device)  # expect: WCT009

    def run(self, img):
        for spec, amount in self.stages:
            self._run_stage(spec, img, amount)
        return img
