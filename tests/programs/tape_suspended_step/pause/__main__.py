"""A few steps, then the residual's gradient."""

import warp as wp

from pause.solver import Solver


def main():
    wp.init()
    solver = Solver(16)
    for _ in range(3):
        solver.step(0.1)
    print("gradient", solver.sensitivity()[:4])


if __name__ == "__main__":
    main()
