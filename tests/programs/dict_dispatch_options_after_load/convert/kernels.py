"""One kernel per dtype, looked up by the caller."""

import warp as wp


@wp.kernel
def normalize_f32(x: wp.array(dtype=wp.float32), scale: wp.float32):
    i = wp.tid()
    x[i] = x[i] * scale


@wp.kernel
def normalize_f64(x: wp.array(dtype=wp.float64), scale: wp.float64):
    i = wp.tid()
    x[i] = x[i] * scale


KERNELS = {wp.float32: normalize_f32, wp.float64: normalize_f64}


def use_fast_math():
    # A bare call: it targets this file's module, which owns the kernels.
    wp.set_module_options({"fast_math": True})


def forward_only():
    wp.set_module_options({"enable_backward": False})
