"""Simulate a few steps; the step shrinks as the cloth speeds up."""

import warp as wp

wp.config.enable_backward = False  # forward-only: set before any kernel module exists

from cloth.solver import Solver  # noqa: E402


def main():
    wp.init()
    solver = Solver(count=32)
    dt = 1.0 / 60.0
    for step in range(3):
        solver.step(dt)
        dt *= 0.9
    print("y", float(solver.x.numpy()[0][1]))


if __name__ == "__main__":
    main()
