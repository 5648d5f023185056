"""The Warp dtype that matches a NumPy array."""

import numpy as np
import warp as wp


def warp_dtype(x: np.ndarray):
    if x.dtype == np.float64:
        return wp.float64
    if x.dtype == np.float32:
        return wp.float32
    raise TypeError(f"unsupported dtype {x.dtype}")
