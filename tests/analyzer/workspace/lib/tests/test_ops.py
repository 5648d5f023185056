import warp as wp

from mylib import scale


def test_scale():
    a = wp.ones(4, dtype=float)
    scale(a, 2.0)
