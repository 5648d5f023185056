"""Steps without recording; differentiates its residual on a tape of its own."""

import warp as wp

from pause import forward, residual
from pause.state import suspended_tape


class Solver:
    def __init__(self, n):
        self.q = wp.array([float(i % 5) for i in range(n)], dtype=float, device="cpu", requires_grad=True)
        self.qd = wp.ones(n, dtype=float, device="cpu")
        self.target = wp.zeros(n, dtype=float, device="cpu")
        self.tmp = wp.zeros(n, dtype=float, device="cpu")
        self.r = wp.zeros(1, dtype=float, device="cpu", requires_grad=True)

    def step(self, h):
        with suspended_tape() as tape:
            self._step(h)
            if tape is not None:
                tape.record_func(lambda: self.sensitivity(), [self.q])

    def _step(self, h):
        n = self.q.shape[0]
        wp.launch(forward.predict, dim=n, inputs=[self.q, self.qd, h, self.tmp], device="cpu")
        wp.launch(forward.relax, dim=n, inputs=[self.tmp, self.target, self.q], device="cpu")

    def sensitivity(self):
        with suspended_tape():
            self.r.zero_()
            tape = wp.Tape()
            with tape:
                wp.launch(residual.residual, dim=self.q.shape[0], inputs=[self.q, self.target, self.r], device="cpu")
            tape.backward(self.r)
            grad = self.q.grad.numpy().copy()
            tape.zero()
        return grad
