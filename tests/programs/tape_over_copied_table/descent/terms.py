"""Penalty kernels and the table of (kernel, weight) rows the trainer differentiates."""

import warp as wp


# silent: WCT010 — the trainer launches every term of this table inside a wp.Tape and
# calls tape.backward(): this module's adjoints run.
@wp.kernel
def l2(x: wp.array(dtype=float), w: float, loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, w * x[i] * x[i])


@wp.kernel
def smooth(x: wp.array(dtype=float), w: float, loss: wp.array(dtype=float)):
    i = wp.tid()
    if i > 0:
        d = x[i] - x[i - 1]
        wp.atomic_add(loss, 0, w * d * d)


TERMS = [(l2, 1.0), (smooth, 0.5)]
