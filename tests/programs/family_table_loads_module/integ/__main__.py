"""Kick velocities through the dtype table, then add a damping kernel and run it."""

import warp as wp

from integ.families import KICK_FAMILIES, Damping, dispatch


def main():
    wp.init()
    v = wp.zeros(8, dtype=wp.float32, device="cpu")
    dispatch(KICK_FAMILIES, v)
    dispatch(KICK_FAMILIES, v, ptr=True)
    damping = Damping(v)
    # expect WCT007: `add()` defines a kernel into `integ.families` after the first kick loaded
    # it: its run builds the whole module again with a new hash.
    damping.add(0.5)  # expect: WCT007
    damping.run()
    print("v", float(v.numpy()[0]))


if __name__ == "__main__":
    main()
