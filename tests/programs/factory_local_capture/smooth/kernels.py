"""Filter kernels made to measure."""

import functools

import warp as wp


def make_blur(radius: int):
    taps = 2 * radius + 1
    # expect WCT003: the kernel captures the local `taps`, which follows `radius`: each
    # Smoother.apply() with a new radius gives this file's module a new hash and builds it again.
    @wp.kernel
    def blur(src: wp.array(dtype=float), dst: wp.array(dtype=float)):  # expect: WCT003
        i = wp.tid()
        acc = float(0.0)
        for k in range(taps):
            j = wp.clamp(i + k - taps // 2, 0, src.shape[0] - 1)
            acc += src[j]
        dst[i] = acc / float(taps)

    return blur


@functools.cache
def make_scale(factor: float):
    gain = factor * 0.5
    # silent: WCT003 — memoized: one kernel per factor, made once
    @wp.kernel
    def scale(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = x[i] * gain

    return scale
