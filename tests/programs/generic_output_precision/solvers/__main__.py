"""A stepper that solves in float32 and an adjoint that solves in float64, as a simulator does,
beside the same solvers written three ways that stay at one build."""

import numpy as np
import warp as wp

from solvers.alternatives import DeclaredSolver, ExactSolver, MemoizedSolver
from solvers.linear import Solver
from solvers.staged import staged_copy


def run(solver, b, x):
    solver.solve(b, x)
    return float(x.numpy()[0])


def main():
    wp.init()
    wp.set_device("cpu")
    n = 8
    rhs = wp.array(np.ones(n), dtype=wp.float64)
    step = wp.zeros(n, dtype=wp.float32)
    adjoint = wp.zeros(n, dtype=wp.float64)
    print("step", run(Solver(n, single=True), rhs, step))
    print("adjoint", run(Solver(n), rhs, adjoint))
    print("exact", run(ExactSolver(n), rhs, wp.zeros(n, dtype=wp.float64)))
    print("declared step", run(DeclaredSolver(n, single=True), rhs, wp.zeros(n, dtype=wp.float32)))
    print("declared adjoint", run(DeclaredSolver(n), rhs, wp.zeros(n, dtype=wp.float64)))
    print("memoized step", run(MemoizedSolver(n, single=True), rhs, wp.zeros(n, dtype=wp.float32)))
    print("staged", float(staged_copy(step).numpy()[0]))
    print("memoized adjoint", run(MemoizedSolver(n), rhs, wp.zeros(n, dtype=wp.float64)))


if __name__ == "__main__":
    main()
