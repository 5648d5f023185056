"""Render one frame."""

import warp as wp

wp.config.enable_backward = False  # forward-only: set before any kernel module exists

from render.housekeeping import remove_caches_at_exit  # noqa: E402
from render.kernels import fog, shade  # noqa: E402


def main():
    wp.init()
    remove_caches_at_exit()
    depth = wp.full(64, 0.5, dtype=float, device="cpu")
    color = wp.zeros(64, dtype=wp.vec3, device="cpu")
    wp.launch(shade, dim=64, inputs=[depth, color, wp.vec3(1.0, 0.9, 0.8)], device="cpu")
    wp.launch(fog, dim=64, inputs=[color, depth, 0.3], device="cpu")
    print("r", float(color.numpy()[0][0]))


if __name__ == "__main__":
    main()
