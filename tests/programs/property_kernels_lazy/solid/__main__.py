"""Evaluate the energies for a few optimizer steps."""

import warp as wp

wp.config.enable_backward = False  # forward-only: set before any kernel module exists

from solid.elastic import LogElastic  # noqa: E402
from solid.gravity import Gravity  # noqa: E402
from solid.model import Model  # noqa: E402
from solid.spring import Spring  # noqa: E402


def main():
    wp.init()
    spring = Spring(64, stiffness=3.0)
    model = Model({"elastic": LogElastic(64), "gravity": Gravity(64)})
    for _ in range(3):
        spring.fun()
        spring.grad()
        model.fun()
        model.grad()
        model.hess()
    wp.synchronize()
    print("energy", float(spring.out.numpy().sum()))


if __name__ == "__main__":
    main()
