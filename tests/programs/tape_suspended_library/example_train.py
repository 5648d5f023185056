"""A user's script: steps under a tape of its own, then backward runs the step's adjoint."""

import warp as wp

from strand import Solver


def main():
    wp.init()
    x = wp.array([0.1 * i for i in range(16)], dtype=float, device="cpu", requires_grad=True)
    solver = Solver(16)
    tape = wp.Tape()
    with tape:
        solver.step(x)
    tape.backward(grads={x: wp.ones(16, dtype=float, device="cpu")})
    print("gradient", x.grad.numpy()[:4])


if __name__ == "__main__":
    main()
