"""One step in float32, then one in float64."""

import warp as wp

from mpm.simulation import Simulation, simulate


def main():
    wp.init()
    wp.set_device("cpu")
    flags = wp.zeros(4, dtype=wp.int32)
    for dtype in (wp.float32, wp.float64):
        sim = Simulation(dtype, "freeslip")
        x = wp.ones(8, dtype=dtype)
        simulate(sim, x, flags)
        print(dtype.__name__, x.numpy()[0], flags.numpy()[0])


if __name__ == "__main__":
    main()
