"""Per-pixel grading kernels: one Warp module."""

import warp as wp

wp.set_module_options({"enable_backward": False})


@wp.kernel
def lift(img: wp.array(dtype=float), amount: float):
    i = wp.tid()
    img[i] = img[i] + amount


@wp.kernel
def gain(img: wp.array(dtype=float), amount: float):
    i = wp.tid()
    img[i] = img[i] * amount


@wp.kernel
def clamp(img: wp.array(dtype=float), amount: float):
    i = wp.tid()
    img[i] = wp.clamp(img[i], 0.0, amount)
