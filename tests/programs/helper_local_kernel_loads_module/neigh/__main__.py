"""Search, then add an offset kernel and run it."""

import warp as wp

from neigh.search import Offsets, search, search_selected


def main():
    wp.init()
    counts = wp.zeros(8, dtype=wp.int32, device="cpu")
    search(counts)
    search_selected(counts, wp.ones(8, dtype=wp.int32, device="cpu"))
    offsets = Offsets(counts)
    # expect WCT007: `add()` defines a kernel into `neigh.search` after `search()` loaded it:
    # its run builds the whole module again with a new hash.
    offsets.add(3)  # expect: WCT007
    offsets.run()
    print("counts", counts.numpy()[0])


if __name__ == "__main__":
    main()
