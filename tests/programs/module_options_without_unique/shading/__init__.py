"""Shading with a fast-math variant."""
