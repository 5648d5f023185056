"""Batch a model's fields over four worlds, then the same batching written four other ways."""

import warp as wp

from worlds.alternatives import DeclaredWorld, SpringWorld, WarmedWorld
from worlds.batch import World
from worlds.memoized import MemoizedWorld
from worlds.model import Model, Springs


def main():
    wp.init()
    wp.set_device("cpu")
    model = Model(bodies=3, geoms=5)
    world = World(model, nworld=4)
    print("batched", world.body_pos.shape, world.body_mass.shape, world.geom_size.shape)
    springs = SpringWorld(Springs(6), nworld=4)
    print("springs", springs.stiffness.shape, springs.damping.shape)
    print("declared", DeclaredWorld(model, nworld=4).geom_size.shape)
    print("warmed", WarmedWorld(model, nworld=4).geom_size.shape)
    print("memoized", [f.shape for f in MemoizedWorld(model, nworld=4).fields])


if __name__ == "__main__":
    main()
