"""The reducer launches its kernels at the block sizes it is given."""

import warp as wp

from reduce.kernels import partial_sums, scale, square


class Reducer:
    def __init__(self, device: str = "cpu"):
        self.device = device
        self.out = wp.zeros(1, dtype=float, device=device)

    def run(self, x: wp.array, block_dims=(128, 256)):
        wp.launch(partial_sums, dim=x.shape, inputs=[x, self.out], block_dim=block_dims[0], device=self.device)
        # expect WCT009: reduce.kernels was launched at block_dims[0] = 128 just above; 256 is a
        # second block_dim for the same module, so on a GPU the whole module is compiled twice.
        wp.launch(scale, dim=x.shape, inputs=[x, 0.5], block_dim=block_dims[1], device=self.device)  # expect: WCT009
        # silent: WCT009 — block_dims[0] again: the module is already built at 128.
        wp.launch(square, dim=x.shape, inputs=[x], block_dim=block_dims[0], device=self.device)
        return self.out
