"""A model: one world's fields, each with its own dtype."""

import warp as wp


class Model:
    def __init__(self, bodies: int, geoms: int):
        self.body_pos = wp.zeros((1, bodies), dtype=wp.vec3)
        self.body_mass = wp.ones((1, bodies), dtype=wp.float32)
        self.geom_size = wp.ones((1, geoms), dtype=wp.vec2)


class Springs:
    def __init__(self, count: int):
        self.stiffness = wp.ones((1, count), dtype=wp.float32)
        self.damping = wp.zeros((1, count), dtype=wp.float32)
