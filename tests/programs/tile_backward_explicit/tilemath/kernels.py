"""Tile kernels."""

import warp as wp

TILE = 8


# expect WCT010: the decorator asks for backward code (the application turned it off
# globally), and nothing tapes or differentiates this kernel.
@wp.kernel(enable_backward=True)  # expect: WCT010
def row_sums(a: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=(1, TILE), offset=(i, 0))
    s = wp.tile_sum(t)
    wp.tile_store(out, wp.tile_reshape(s, shape=(1, 1)), offset=(i, 0))


# silent: WCT010 — no backward requested: the application's global enable_backward=False holds.
@wp.kernel
def scale_rows(a: wp.array2d(dtype=float), s: float):
    i, j = wp.tid()
    a[i, j] = a[i, j] * s
