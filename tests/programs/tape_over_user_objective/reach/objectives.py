"""The user's objective: a subclass of the library's, overriding compute_residuals."""

import warp as wp

from ikit import Objective
from reach.kernels import reach_residual


class ReachObjective(Objective):
    def __init__(self, target):
        self.target = wp.array(target, dtype=float, device="cpu")

    def residual_count(self) -> int:
        return self.target.shape[0]

    def compute_residuals(self, q, residuals, offset):
        wp.launch(reach_residual, dim=self.target.shape[0], inputs=[q, self.target, offset],
                  outputs=[residuals], device="cpu")  # fmt: skip
