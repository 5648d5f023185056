import warp as wp

from shading import histogram
from shading.kernels import clamp, tint


def develop(n: int) -> wp.array:
    pixels = wp.full(n, 0.75, dtype=float)
    bins = wp.zeros(8, dtype=int)
    # Both kernels live in the library's module shading.kernels (another project of the
    # repository): its first launch builds it at the default block_dim, 256.
    wp.launch(tint, dim=n, inputs=[pixels, 1.5])
    # The second block_dim compiles the whole library module again, both kernels.
    wp.launch(clamp, dim=n, inputs=[pixels, 0.0, 1.0], block_dim=64)  # expect: WCT009
    # silent: WCT009 — histogram has a module of its own: its block_dim builds only itself
    wp.launch(histogram, dim=n, inputs=[pixels, bins], block_dim=128)
    return pixels
