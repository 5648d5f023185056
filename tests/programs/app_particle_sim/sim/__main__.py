"""sim [--steps N] [--lineinfo]"""

import argparse

import warp as wp

# A forward-only application: set before any kernel module exists.
wp.config.enable_backward = False

from sim.report import report  # noqa: E402
from sim.world import World  # noqa: E402


def init(args):
    # expect WCT001: importing sim.world above created the modules of sim.integrators and
    # sim.contacts (their module-level kernels); they already copied lineinfo, so --lineinfo
    # never reaches them. (sim.forces defines kernels only in factories: its module is made in
    # World.__init__, after this line, and does get it.)
    wp.config.lineinfo = args.lineinfo  # expect: WCT001
    wp.init()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--lineinfo", action="store_true")
    args = parser.parse_args()
    init(args)
    world = World(64)
    for step in range(args.steps):
        world.step(1.0 / 60.0)
        report(step, world)


if __name__ == "__main__":
    main()
