"""Build a solver, add one term, run three steps."""

import warp as wp

from relax.terms import Solver


def main():
    wp.init()
    solver = Solver(wp.zeros(8, dtype=float, device="cpu"))
    # expect WCT007: `add_term()` defines a kernel into `relax.terms` after the constructor's
    # launch loaded it: the first step builds the whole module again with a new hash.
    solver.add_term(0.5)  # expect: WCT007
    for _ in range(3):
        solver.step()
    print("x", float(solver.x.numpy()[0]))


if __name__ == "__main__":
    main()
