"""Cell hashing: the module the others star-import, `wp` included."""

import warp as wp

# silent: WCT010 — integer hashing is never differentiated, and says so for its module.
wp.set_module_options({"enable_backward": False})

CELL = 0.5


@wp.kernel
def hash_cells(x: wp.array(dtype=float), cells: wp.array(dtype=int)):
    i = wp.tid()
    cells[i] = int(wp.floor(x[i] / CELL))


def cell_of(x):
    cells = wp.zeros(x.shape[0], dtype=int, device="cpu")
    wp.launch(hash_cells, dim=x.shape[0], inputs=[x, cells], device="cpu")
    return cells
