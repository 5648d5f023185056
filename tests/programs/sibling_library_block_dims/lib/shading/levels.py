import warp as wp


# A module of its own: launched at any block_dim, it builds only itself.
@wp.kernel(module="unique")
def histogram(pixels: wp.array(dtype=float), bins: wp.array(dtype=int)):
    i = wp.tid()
    b = wp.min(int(pixels[i] * 8.0), 7)
    wp.atomic_add(bins, b, 1)
