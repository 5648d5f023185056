"""The pipeline: warm-up, tuning, then one pass per frame."""

import warp as wp

from denoise import filters
from denoise.stages import run_stages


class Pipeline:
    def __init__(self, n, unroll):
        self.unroll = unroll
        self.stages = list(filters.default_stages())
        self.signal = wp.array([((i * 37) % 101) / 50.0 - 1.0 for i in range(n)], dtype=float, device="cpu")
        self.scratch = wp.zeros_like(self.signal)

    def warmup(self):
        run_stages(self.signal, self.scratch, self.stages)
        wp.synchronize()

    def tune(self):
        # The finding is at the call of tune() that comes after warmup(): see __main__.py.
        wp.set_module_options({"max_unroll": self.unroll}, module="denoise.filters")

    def frame(self):
        out = run_stages(self.signal, self.scratch, self.stages)
        return float(out.numpy().sum())
