"""The simulation keeps the model the builder made; the integrator reads it from there."""

import warp as wp

from mpm.builder import Builder


class Simulation:
    def __init__(self, dtype, bc):
        self.mpm_model = Builder(bc).finalize(dtype)


def simulate(sim, x, flags):
    mpm_model = sim.mpm_model
    wp.launch(mpm_model.p2g, dim=x.shape, inputs=[x, mpm_model.dtype(2.0)])
    wp.launch(mpm_model.grid_op, dim=flags.shape, inputs=[flags])
