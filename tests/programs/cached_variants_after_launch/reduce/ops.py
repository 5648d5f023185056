"""A cached factory that adds one variant per (dtype, ndim) to this module."""

import functools

import warp as wp

wp.set_module_options({"enable_backward": False})


@functools.cache
def sum_kernel(dtype, ndim):
    @wp.kernel
    def total(x: wp.array(dtype=dtype, ndim=ndim), out: wp.array(dtype=dtype)):
        wp.atomic_add(out, 0, x[wp.tid()])

    return total


def array_sum(x: wp.array) -> float:
    out = wp.zeros(1, dtype=x.dtype, device=x.device)
    # expect WCT007: a float64 array after a float32 one asks the cache for a new variant,
    # which joins this module after the float32 launch loaded it: built again, whole.
    wp.launch(sum_kernel(x.dtype, x.ndim), dim=x.shape, inputs=[x, out], device=x.device)  # expect: WCT007
    return float(out.numpy()[0])
