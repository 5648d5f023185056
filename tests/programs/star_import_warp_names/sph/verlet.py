"""Filter a Verlet list: no `import warp` here, `wp` comes with the star import."""

from .hashing import *  # noqa: F403


# expect WCT010: the counts and the filter run outside any tape: their adjoint is never used.
@wp.kernel  # expect: WCT010
def count_neighbors(x: wp.array(dtype=float), cells: wp.array(dtype=int), counts: wp.array(dtype=int)):
    i = wp.tid()
    n = int(0)
    for j in range(x.shape[0]):
        if wp.abs(cells[j] - cells[i]) <= 1 and j != i:
            n += 1
    counts[i] = n


@wp.kernel
def keep_close(counts: wp.array(dtype=int), keep: wp.array(dtype=int), limit: int):
    i = wp.tid()
    keep[i] = wp.where(counts[i] <= limit, 1, 0)


def filter_verlet_list(x, limit):
    cells = cell_of(x)  # noqa: F405
    counts = wp.zeros(x.shape[0], dtype=int, device="cpu")
    keep = wp.zeros(x.shape[0], dtype=int, device="cpu")
    wp.launch(count_neighbors, dim=x.shape[0], inputs=[x, cells, counts], device="cpu")
    wp.launch(keep_close, dim=x.shape[0], inputs=[counts, keep, limit], device="cpu")
    return keep
