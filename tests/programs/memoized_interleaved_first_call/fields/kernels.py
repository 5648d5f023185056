"""Kernel factories, each memoized a different way."""

import functools

import warp as wp

from fields.memo import memoize


@functools.cache
def make_decay(rate: float):
    # silent: WCT003 — functools.cache returns the same kernel for the same rate.
    @wp.kernel
    def decay(f: wp.array(dtype=float)):
        i = wp.tid()
        f[i] = f[i] * (1.0 - rate)

    return decay


@functools.lru_cache(maxsize=None)
def make_source(strength: float):
    # silent: WCT003 — lru_cache(maxsize=None) memoizes like functools.cache.
    @wp.kernel
    def source(f: wp.array(dtype=float)):
        i = wp.tid()
        f[i] = f[i] + strength

    return source


_DIFFUSE_KERNELS = {}


def get_diffuse(alpha: float):
    if alpha not in _DIFFUSE_KERNELS:
        # silent: WCT003 — made once per alpha and kept in _DIFFUSE_KERNELS.
        @wp.kernel
        def diffuse(f: wp.array(dtype=float), out: wp.array(dtype=float)):
            i = wp.tid()
            n = f.shape[0]
            left = f[(i + n - 1) % n]
            right = f[(i + 1) % n]
            out[i] = f[i] + alpha * (left + right - 2.0 * f[i])

        _DIFFUSE_KERNELS[alpha] = diffuse
    return _DIFFUSE_KERNELS[alpha]


@memoize
def make_floor(level: float):
    # silent: WCT003 — @memoize (fields/memo.py) is a dict cache keyed by the arguments.
    @wp.kernel
    def floor(f: wp.array(dtype=float)):
        i = wp.tid()
        f[i] = wp.max(f[i], level)

    return floor
