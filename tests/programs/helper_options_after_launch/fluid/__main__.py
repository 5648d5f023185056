"""Warm up, then switch to fast math for the long run."""

import warp as wp

wp.config.enable_backward = False  # forward-only: set before any kernel module exists

from fluid.simulation import Simulation  # noqa: E402
from fluid.tuning import use_fast_math  # noqa: E402


def main():
    wp.init()
    sim = Simulation(64)
    sim.run(2)
    # expect WCT006: sim.run() already loaded fluid.kernels; use_fast_math() changes its
    # options, so its next launch hashes and builds the whole module again.
    use_fast_math()  # expect: WCT006
    sim.run(10)
    print("q", float(sim.q.numpy().sum()))


if __name__ == "__main__":
    main()
