"""Post effects: plain kernels in this file's module."""

import warp as wp


@wp.kernel
def tonemap(img: wp.array(dtype=float)):
    i = wp.tid()
    img[i] = img[i] / (1.0 + img[i])


@wp.kernel
def vignette(img: wp.array(dtype=float), width: int, strength: float):
    i = wp.tid()
    x = float(i % width) / float(width) - 0.5
    img[i] = img[i] * (1.0 - strength * x * x)
