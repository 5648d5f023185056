"""Assembles the stiffness diagonal for the configured precision."""

import warp as wp

from fem.kernels import stiffness_diag


class Assembler:
    def __init__(self, n: int, device: str = "cpu"):
        self.n = n
        self.device = device
        self.dtype = wp.float32

    def enable_double(self):
        # expect WCT007: a new overload joins fem.kernels after assemble() loaded it: the
        # module gets a new hash and is built again, whole.
        wp.overload(stiffness_diag, {"h": wp.array(dtype=wp.float64), "k": wp.array(dtype=wp.float64)})  # expect: WCT007
        self.dtype = wp.float64

    def assemble(self):
        h = wp.full(self.n, 0.1, dtype=self.dtype, device=self.device)
        k = wp.zeros(self.n, dtype=self.dtype, device=self.device)
        wp.launch(stiffness_diag, dim=self.n, inputs=[h, k], device=self.device)
        return k
