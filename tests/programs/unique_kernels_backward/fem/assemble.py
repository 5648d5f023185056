"""Assemble the lumped mass and stiffness diagonals."""

import warp as wp

from fem.elements import make_mass_kernel, make_stiffness_kernel


def assemble(order: int, n: int):
    rho = wp.ones(n, dtype=float)
    mass = wp.zeros(n, dtype=float)
    stiffness = wp.zeros(n, dtype=float)
    wp.launch(make_mass_kernel(order), dim=n, inputs=[rho, mass])
    wp.launch(make_stiffness_kernel(order), dim=n, inputs=[rho, stiffness])
    return mass.numpy()[0], stiffness.numpy()[0]
