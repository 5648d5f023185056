"""Run the field simulation for a few steps."""

import warp as wp

wp.config.enable_backward = False  # forward-only: set before any kernel module exists

from fields.sim import FieldSim  # noqa: E402


def main():
    wp.init()
    sim = FieldSim(32)
    for _ in range(5):
        sim.step()
    print("sum", float(sim.f.numpy().sum()))


if __name__ == "__main__":
    main()
