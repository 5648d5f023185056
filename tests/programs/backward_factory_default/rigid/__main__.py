"""Simulate; nothing here records a wp.Tape or launches adjoints."""

import warp as wp

wp.config.enable_backward = False  # forward-only: set before any kernel module exists

from rigid.world import World  # noqa: E402


def main():
    wp.init()
    world = World(16)
    for _ in range(4):
        world.step(0.01)
    print("y", float(world.x.numpy()[0][1]))


if __name__ == "__main__":
    main()
