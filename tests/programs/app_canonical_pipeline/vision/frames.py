"""A synthetic camera: each frame is a moving gradient."""

import numpy as np
import warp as wp


def frame(index: int, width: int, height: int, device: str = "cpu") -> wp.array:
    x = np.linspace(0.0, 1.0, width * height, dtype=np.float32)
    return wp.array((x + 0.05 * index) % 1.0, dtype=float, device=device)
