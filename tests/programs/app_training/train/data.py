"""A synthetic regression data set."""

import numpy as np
import warp as wp


def batches(count: int, size: int, device: str = "cpu"):
    rng = np.random.default_rng(0)
    for _ in range(count):
        x = rng.standard_normal((size, 2)).astype(np.float32)
        y = (x[:, 0] - 0.5 * x[:, 1]).astype(np.float32)
        yield wp.array(x, device=device), wp.array(y, device=device)
