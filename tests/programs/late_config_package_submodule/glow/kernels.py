"""The filters' kernels (their module copies wp.config's deadline options when created)."""

import warp as wp

__all__ = ["brighten"]


@wp.kernel
def brighten(img: wp.array(dtype=float), gain: float):
    i = wp.tid()
    img[i] = img[i] * gain
