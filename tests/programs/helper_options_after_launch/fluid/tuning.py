"""Speed knobs applied to the advection kernels."""

import warp as wp

from fluid import kernels


def use_fast_math():
    # Targets fluid.kernels by its Python module object (works on every Warp version).
    wp.set_module_options({"fast_math": True}, module=kernels)
