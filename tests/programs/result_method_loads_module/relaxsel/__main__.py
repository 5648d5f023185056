"""Build a solver, add one term, run three steps; clear a signal, add a gain, run it."""

import warp as wp

from relaxsel.filters import Clear, Gain
from relaxsel.terms import Solver


def main():
    wp.init()
    solver = Solver(wp.zeros(8, dtype=float, device="cpu"))
    # expect WCT007: `add_term()` defines a kernel into `relaxsel.terms` after the constructor's
    # launch loaded it: the first step builds the whole module again with a new hash.
    solver.add_term(0.5)  # expect: WCT007
    for _ in range(3):
        solver.step()
    signal = wp.ones(8, dtype=float, device="cpu")
    stage = Clear()
    stage.run(signal)
    gain = Gain(signal)
    # expect WCT007: `add()` defines a kernel into `relaxsel.filters` after `stage.run()`
    # loaded it: its run builds the whole module again with a new hash.
    gain.add(2.0)  # expect: WCT007
    gain.run()
    print("x", float(solver.x.numpy()[0]), "signal", float(signal.numpy()[0]))


if __name__ == "__main__":
    main()
