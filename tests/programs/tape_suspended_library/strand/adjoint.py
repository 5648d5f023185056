"""The step's adjoint: tapes of its own, inside a suspension of the caller's."""

from types import SimpleNamespace

import warp as wp

from strand import linear, residual
from strand.state import suspended_tape


class StepAdjoint:
    def __init__(self, solver):
        n = solver.n
        self.parts = [SimpleNamespace(blk=e) for e in solver.elements]
        self.f = wp.zeros(n, dtype=float, device="cpu", requires_grad=True)
        self.r = wp.zeros(1, dtype=float, device="cpu", requires_grad=True)

    def vjp(self, x):
        with suspended_tape():
            self.r.zero_()
            tape = wp.Tape()
            with tape:
                for e in self.parts:
                    y = e.blk.bind(x)  # a call the linter cannot type: any `bind` method may run
                    wp.launch(e.blk.k.forces, dim=y.shape[0], inputs=[y, self.f], device="cpu")
                wp.launch(residual.residual, dim=x.shape[0], inputs=[x, self.f, self.r], device="cpu")
                # run by tape.backward() below (first: the tape replays in reverse), where no tape records
                tape.record_func(lambda: self._precondition(x), [x])
            tape.backward(self.r)

    def _precondition(self, x):
        wp.launch(linear.precondition, dim=x.shape[0], inputs=[x, x.grad], device="cpu")
