import warp as wp


@wp.kernel
def tint(pixels: wp.array(dtype=float), amount: float):
    i = wp.tid()
    pixels[i] = pixels[i] * amount


@wp.kernel
def clamp(pixels: wp.array(dtype=float), low: float, high: float):
    i = wp.tid()
    pixels[i] = wp.clamp(pixels[i], low, high)
