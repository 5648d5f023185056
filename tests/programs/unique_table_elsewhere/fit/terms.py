"""Penalty kernels and the table of (kernel, weight) rows the trainer applies."""

import warp as wp


# expect WCT002: the trainer applies both terms from one launch in a loop, so each
# module="unique" is one more module build for kernels that could share one.
@wp.kernel(module="unique")  # expect: WCT002:info
def l2(x: wp.array(dtype=float), w: float, loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, w * x[i] * x[i])


@wp.kernel(module="unique")  # expect: WCT002:info
def l1(x: wp.array(dtype=float), w: float, loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, w * wp.abs(x[i]))


TERMS = [(l2, 1.0), (l1, 0.5)]
