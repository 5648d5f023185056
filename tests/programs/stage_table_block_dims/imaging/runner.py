"""Runs the stage table."""

import warp as wp

from imaging.filters import STAGES


def run_stages(img: wp.array, stages=STAGES):
    for kernel, block_dim in stages:
        # expect WCT009: the table launches imaging.filters at block_dim 64 and at 128, so on
        # a GPU the whole module is compiled once per block_dim.
        wp.launch(kernel, dim=img.shape, inputs=[img], block_dim=block_dim, device=img.device)  # expect: WCT009
