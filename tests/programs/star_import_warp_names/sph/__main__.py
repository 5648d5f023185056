"""Filter the neighbour list, then differentiate the density with respect to positions."""

import warp as wp

from sph.density import total_density
from sph.verlet import filter_verlet_list


def main():
    wp.init()
    x = wp.array([0.05 + 0.1 * i for i in range(32)], dtype=float, device="cpu", requires_grad=True)
    keep = filter_verlet_list(x, limit=12)
    print("kept", int(keep.numpy().sum()))
    tape = wp.Tape()
    with tape:
        rho = total_density(x)
    tape.backward(rho)
    print("d rho / d x0", float(x.grad.numpy()[0]))


if __name__ == "__main__":
    main()
