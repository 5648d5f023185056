"""Differentiable smoothing operators for Warp arrays.

Every operator can be recorded on a ``wp.Tape``: create inputs with ``requires_grad=True``
and call ``tape.backward()`` to get gradients with respect to them. ``smooth`` allocates its
result; ``smooth_out`` writes into a given array and never mutates its input, so gradients
stay correct when it is taped.
"""

from smoothlib.ops import smooth, smooth_out

__all__ = ["smooth", "smooth_out"]
