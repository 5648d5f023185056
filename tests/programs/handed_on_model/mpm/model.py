"""The MPM model: its kernels are static methods; the builder picks the grid operator."""

from typing import Any

import warp as wp

wp.set_module_options({"enable_backward": False})


class MPMModel:
    def __init__(self, dtype):
        self.dtype = dtype
        self.grid_op = None  # set by the builder

    # expect WCT007: launched as ``mpm_model.p2g`` of a model the integrator gets from the
    # simulation object, with float32 arrays, then float64 ones: the new instantiation
    # rebuilds the module.
    @staticmethod
    @wp.kernel
    def p2g(x: wp.array(dtype=Any), s: Any):  # expect: WCT007
        i = wp.tid()
        x[i] = x[i] * s

    @staticmethod
    @wp.kernel
    def grid_op_freeslip(flags: wp.array(dtype=wp.int32)):
        flags[wp.tid()] = 1

    @staticmethod
    @wp.kernel
    def grid_op_noslip(flags: wp.array(dtype=wp.int32)):
        flags[wp.tid()] = 2
