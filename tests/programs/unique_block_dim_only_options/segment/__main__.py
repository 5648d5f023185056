"""Count pixels above two thresholds."""

import numpy as np
import warp as wp

wp.config.enable_backward = False  # forward-only: set before any kernel module exists

from segment.kernels import segment  # noqa: E402


def main():
    wp.init()
    img = wp.array(np.linspace(0, 255, 128, dtype=np.float32), device="cpu")
    print("counts", segment(img, levels=(0.25, 0.75)))


if __name__ == "__main__":
    main()
