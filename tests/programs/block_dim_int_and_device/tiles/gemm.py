"""A tiled kernel and a plain one in this file's module."""

import warp as wp

wp.set_module_options({"enable_backward": False})

TILE = 8
TILE_BLOCK_DIM = wp.constant(64)


@wp.kernel
def tile_copy(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    i, j = wp.tid()
    t = wp.tile_load(a, shape=(TILE, TILE), offset=(i * TILE, j * TILE))
    wp.tile_store(b, t, offset=(i * TILE, j * TILE))


@wp.kernel
def zero(b: wp.array2d(dtype=float)):
    i, j = wp.tid()
    b[i, j] = 0.0


def copy_tiled(a: wp.array, b: wp.array):
    wp.launch(zero, dim=b.shape, inputs=[b], device=b.device)
    # expect WCT009: zero() above launched tiles.gemm at the default block_dim (256); this
    # launch asks for 64, a second build of the whole module on a GPU.
    wp.launch_tiled(tile_copy, dim=(a.shape[0] // TILE, a.shape[1] // TILE), inputs=[a, b], block_dim=int(TILE_BLOCK_DIM), device=a.device)  # expect: WCT009
