"""Numerics settings for the sensor kernels, applied on import."""

import warp as wp

# expect WCT014: this file defines no kernels, so a bare set_module_options configures the
# (empty) module of sensors.precision; sensors.filters never sees fast_math.
wp.set_module_options({"fast_math": True})  # expect: WCT014

EPSILON = 1e-6
