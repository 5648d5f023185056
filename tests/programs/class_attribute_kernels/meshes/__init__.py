"""Meshes whose kernels live in their class bodies."""
