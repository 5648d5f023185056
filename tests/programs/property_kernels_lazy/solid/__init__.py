"""Energies of a deformable solid, each with its own kernels for value and gradient."""
