"""Reach a target: the library's optimizer differentiates the user's objective on its tape."""

import warp as wp

from ikit import Optimizer
from reach.objectives import ReachObjective
from reach.report import report


def main():
    wp.init()
    target = [0.25 * i for i in range(8)]
    objective = ReachObjective(target)
    q = wp.zeros(8, dtype=float, device="cpu", requires_grad=True)
    optimizer = Optimizer([objective], 8)
    optimizer.step(q, iterations=3)
    print("distance to target", report(q, objective.target))


if __name__ == "__main__":
    main()
