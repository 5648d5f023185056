"""Evaluation metrics."""

import warp as wp

# expect WCT010: backward code asked for explicitly, for a module whose kernels only evaluate
# (nothing tapes or differentiates them).
wp.set_module_options({"enable_backward": True})  # expect: WCT010


@wp.kernel
def abs_error(pred: wp.array2d(dtype=float), target: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, 0, wp.abs(pred[i, 0] - target[i]) / float(target.shape[0]))


@wp.kernel
def max_error(pred: wp.array2d(dtype=float), target: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_max(out, 0, wp.abs(pred[i, 0] - target[i]))
