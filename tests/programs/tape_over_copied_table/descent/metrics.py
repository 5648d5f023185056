"""Evaluation kernels: launched on the current weights, never on a tape."""

import warp as wp


# expect WCT010: nothing records these launches on a tape, yet the module is built with
# its backward code (enable_backward defaults to True).
@wp.kernel  # expect: WCT010
def max_abs(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_max(out, 0, wp.abs(x[i]))


@wp.kernel
def count_small(x: wp.array(dtype=float), eps: float, out: wp.array(dtype=int)):
    i = wp.tid()
    if wp.abs(x[i]) < eps:
        wp.atomic_add(out, 0, 1)


def report(x):
    peak = wp.zeros(1, dtype=float, device="cpu")
    small = wp.zeros(1, dtype=int, device="cpu")
    wp.launch(max_abs, dim=x.shape, inputs=[x, peak], device="cpu")
    wp.launch(count_small, dim=x.shape, inputs=[x, 1.0e-2, small], device="cpu")
    return float(peak.numpy()[0]), int(small.numpy()[0])
