"""Run 50 frames."""

import numpy as np
import warp as wp

wp.config.enable_backward = False  # forward-only: set before any kernel module exists

from particles.update import advance  # noqa: E402


def main():
    wp.init()
    wp.set_device("cpu")
    x = wp.zeros(128, dtype=wp.vec3)
    v = wp.array(np.ones((128, 3), dtype=np.float32), dtype=wp.vec3)
    for frame in range(50):
        advance(x, v, 1.0 / 60.0)
    print("x", float(x.numpy()[0][0]))


if __name__ == "__main__":
    main()
