"""Gradient descent on the sum of a copied table of penalty terms."""

import warp as wp

from descent.terms import TERMS


# expect WCT010: the update runs after tape.backward(), outside the tape: its adjoint is
# built and never launched.
@wp.kernel  # expect: WCT010
def descend(x: wp.array(dtype=float), grad: wp.array(dtype=float), rate: float):
    i = wp.tid()
    x[i] = x[i] - rate * grad[i]


class Trainer:
    def __init__(self, n):
        self.terms = list(TERMS)
        self.x = wp.array([float(i % 7) - 3.0 for i in range(n)], dtype=float, device="cpu", requires_grad=True)
        self.loss = wp.zeros(1, dtype=float, device="cpu", requires_grad=True)

    def step(self, rate):
        self.loss.zero_()
        tape = wp.Tape()
        with tape:
            for kernel, weight in self.terms:
                wp.launch(kernel, dim=self.x.shape, inputs=[self.x, weight, self.loss], device="cpu")
        tape.backward(self.loss)
        wp.launch(descend, dim=self.x.shape, inputs=[self.x, self.x.grad, rate], device="cpu")
        tape.zero()
        return float(self.loss.numpy()[0])
