"""Kernels behind the public operators; their adjoints are what callers differentiate."""

import warp as wp


# expect WCT010 as info: nothing in this project differentiates these kernels, but the
# library's callers may (the public API promises gradients): the advice to turn backward
# off belongs at a forward-only application's entry point, not here.
@wp.kernel  # expect: WCT010:info
def laplacian_step(x: wp.array(dtype=float), out: wp.array(dtype=float), alpha: float):
    i = wp.tid()
    n = x.shape[0]
    out[i] = x[i] + alpha * (x[(i + n - 1) % n] + x[(i + 1) % n] - 2.0 * x[i])


@wp.kernel
def assign(src: wp.array(dtype=float), dst: wp.array(dtype=float)):
    i = wp.tid()
    dst[i] = src[i]
