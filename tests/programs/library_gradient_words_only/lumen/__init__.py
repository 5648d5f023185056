"""Tone mapping. Gradients are disabled here: nothing in this library is differentiable, and
no operator may be recorded on a wp.Tape (requires_grad arrays are not supported)."""

from lumen.ops import tonemap

__all__ = ["tonemap"]
