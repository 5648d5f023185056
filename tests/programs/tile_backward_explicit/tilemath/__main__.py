"""Sum the rows of a small matrix by tiles."""

import numpy as np
import warp as wp

wp.config.enable_backward = False  # forward-only: set before any kernel module exists

from tilemath.kernels import TILE, row_sums, scale_rows  # noqa: E402


def main():
    wp.init()
    a = wp.array(np.arange(4 * TILE, dtype=np.float32).reshape(4, TILE), device="cpu")
    out = wp.zeros((4, 1), dtype=float, device="cpu")
    wp.launch(scale_rows, dim=a.shape, inputs=[a, 0.5], device="cpu")
    wp.launch_tiled(row_sums, dim=[4], inputs=[a, out], block_dim=1, device="cpu")
    print("sums", out.numpy().ravel())


if __name__ == "__main__":
    main()
