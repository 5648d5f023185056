"""One frame of the particle update."""

import warp as wp

from particles.kernels import AIR_DRAG, make_drag, move


def advance(x: wp.array, v: wp.array, dt: float):
    wp.launch(make_drag(AIR_DRAG), dim=v.shape, inputs=[v], device=v.device)
    wp.launch(move, dim=x.shape, inputs=[x, v, dt], device=x.device)
