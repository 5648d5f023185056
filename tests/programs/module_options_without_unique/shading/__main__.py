"""Shade a few normals both ways."""

import warp as wp

wp.config.enable_backward = False  # forward-only: set before any kernel module exists

from shading.fast import shade_fast  # noqa: E402  (raises ValueError)
from shading.precise import shade_precise  # noqa: E402


def main():
    wp.init()
    n = wp.full(8, wp.vec3(0.0, 0.0, 1.0), dtype=wp.vec3, device="cpu")
    out = wp.zeros(8, dtype=float, device="cpu")
    for kernel in (shade_fast, shade_precise):
        wp.launch(kernel, dim=8, inputs=[n, out, wp.vec3(0.0, 0.0, 1.0)], device="cpu")
    print("out", float(out.numpy()[0]))


if __name__ == "__main__":
    main()
