"""Filter kernels; all in this file's module."""

import warp as wp

wp.set_module_options({"enable_backward": False})


@wp.kernel
def brighten(img: wp.array(dtype=float)):
    i = wp.tid()
    img[i] = img[i] + 0.1


@wp.kernel
def contrast(img: wp.array(dtype=float)):
    i = wp.tid()
    img[i] = (img[i] - 0.5) * 1.2 + 0.5


@wp.kernel
def threshold(img: wp.array(dtype=float)):
    i = wp.tid()
    img[i] = wp.where(img[i] > 0.5, 1.0, 0.0)


STAGES = [
    (brighten, 64),
    (contrast, 64),
    (threshold, 128),
]
