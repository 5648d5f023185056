"""Smoke test of the operators (forward)."""

import numpy as np
import warp as wp

from smoothlib import smooth


def main():
    wp.init()
    x = wp.array(np.array([0, 0, 1, 0, 0, 0, 0, 0], dtype=np.float32), device="cpu")
    print("smoothed", smooth(x, iterations=2).numpy())


if __name__ == "__main__":
    main()
