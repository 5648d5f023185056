import warp as wp


@wp.kernel
def to_pixels(x: wp.array(dtype=float), img: wp.array(dtype=float)):
    i = wp.tid()
    img[i] = wp.clamp(x[i], 0.0, 1.0)
