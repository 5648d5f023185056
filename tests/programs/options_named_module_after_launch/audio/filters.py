"""Filters applied to each audio block."""

import warp as wp


@wp.kernel
def gain(buf: wp.array(dtype=float), g: float):
    i = wp.tid()
    buf[i] = buf[i] * g


@wp.kernel
def fir3(buf: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    n = buf.shape[0]
    acc = float(0.0)
    for k in range(3):
        acc += buf[(i + n - k) % n] / 3.0
    out[i] = acc
