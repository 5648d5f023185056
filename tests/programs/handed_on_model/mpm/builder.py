"""Builds the model and gives it the grid operator of its boundary condition."""

from mpm.model import MPMModel


class Builder:
    def __init__(self, bc):
        self.bc = bc

    def finalize(self, dtype):
        model = MPMModel(dtype)
        if self.bc == "freeslip":
            model.grid_op = MPMModel.grid_op_freeslip
        else:
            model.grid_op = MPMModel.grid_op_noslip
        return model
