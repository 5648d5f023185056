"""Filters applied to sensor samples."""

import warp as wp


@wp.kernel
def lowpass(x: wp.array(dtype=float), y: wp.array(dtype=float), alpha: float):
    i = wp.tid()
    if i == 0:
        y[i] = x[i]
    else:
        y[i] = alpha * x[i] + (1.0 - alpha) * x[i - 1]


@wp.kernel
def rectify(y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = wp.abs(y[i])
