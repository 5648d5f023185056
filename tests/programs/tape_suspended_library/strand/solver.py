"""The solver: its step runs with the caller's tape suspended and records its adjoint instead."""

import warp as wp

from strand.blocks import Stretch
from strand.elements import Element
from strand.state import suspended_tape


class Solver:
    """Under a ``wp.Tape`` a step is recorded as its adjoint (:meth:`vjp`)."""

    def __init__(self, n):
        self.n = n
        self.elements = (Element(n),)
        self.stretch = Stretch(n)
        self.blocks = (*self.elements, self.stretch)  # blocks of two kinds, run alike
        self._adjoint = None

    def step(self, x):
        with suspended_tape() as tape:
            self._solve(x)
            if tape is not None:
                tape.record_func(lambda: self.vjp(x), [x])

    def _solve(self, x):
        for _ in range(2):
            for blk in self.blocks:
                blk.assemble(x)
                blk.relax(x)

    def vjp(self, x):
        if self._adjoint is None:
            from strand.adjoint import StepAdjoint

            self._adjoint = StepAdjoint(self)
        self._adjoint.vjp(x)
