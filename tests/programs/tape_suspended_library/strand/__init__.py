"""A strand solver whose step is recorded on a caller's tape as a hand-made adjoint."""

from strand.solver import Solver

__all__ = ["Solver"]
