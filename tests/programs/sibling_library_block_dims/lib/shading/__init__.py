"""Pixel kernels shared by the applications of the repository."""

from shading.kernels import clamp, tint
from shading.levels import histogram

__all__ = ["clamp", "histogram", "tint"]
