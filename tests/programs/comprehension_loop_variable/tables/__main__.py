"""Run a filter, then add a clamp to the filters' module and an extra to the helpers' module."""

import warp as wp

from tables.filters import Clamp, apply
from tables.ops import Extras


def main():
    wp.init()
    a = wp.ones(8, dtype=float, device="cpu")
    apply("gain", a)
    clamp = Clamp(a)
    # expect WCT007: `add()` defines a kernel into `tables.filters` after `apply()` loaded it:
    # its run builds the whole module again with a new hash.
    clamp.add(1.5)  # expect: WCT007
    clamp.run()
    extras = Extras(a)
    # silent: WCT007 — `tables.ops` was never launched before: `apply()` runs a filter's
    # kernel (the comprehension's variable), not the helpers' own `kernel`.
    extras.add(0.25)
    extras.run()
    print("a", float(a.numpy()[0]))


if __name__ == "__main__":
    main()
