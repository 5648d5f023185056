"""Copy a matrix by tiles, then post-process it."""

import sys

import numpy as np
import warp as wp

from tiles.gemm import copy_tiled
from tiles.post import postprocess


def main():
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    wp.init()
    a = wp.array(np.arange(256, dtype=np.float32).reshape(16, 16), device=device)
    b = wp.zeros((16, 16), dtype=float, device=device)
    copy_tiled(a, b)
    flat = wp.array(b.numpy().ravel() - 100.0, device=device)
    postprocess(flat, device)
    print("sum", float(flat.numpy().sum()))


if __name__ == "__main__":
    main()
