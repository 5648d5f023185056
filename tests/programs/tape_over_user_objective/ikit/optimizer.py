"""Gradient descent on the objectives' residuals, differentiated on a tape of the library's.

The library never knows the user's objective classes: it records ``obj.compute_residuals()``
of whatever objectives it is handed, through a helper that runs a callback per objective.
"""

import warp as wp

from ikit.kernels import descend, integrate


class Optimizer:
    def __init__(self, objectives, n, rate=0.5):
        self.objectives = list(objectives)
        self.offsets = []
        count = 0
        for obj in self.objectives:
            self.offsets.append(count)
            count += obj.residual_count()
        self.n = n
        self.rate = rate
        self.dq = wp.zeros(n, dtype=float, device="cpu", requires_grad=True)
        self.q_proposed = wp.zeros(n, dtype=float, device="cpu", requires_grad=True)
        self.residuals = wp.zeros(count, dtype=float, device="cpu", requires_grad=True)
        self.grad = wp.zeros(n, dtype=float, device="cpu")
        self.tape = wp.Tape()

    def step(self, q, iterations):
        for _ in range(iterations):
            self._gradient(q)
            wp.launch(descend, dim=self.n, inputs=[q, self.grad, self.rate], device="cpu")

    def _gradient(self, q):
        with self.tape:
            wp.launch(integrate, dim=self.n, inputs=[q, self.dq], outputs=[self.q_proposed], device="cpu")
            self._residuals(self.q_proposed)
        self.tape.backward(grads={self.residuals: self.residuals})
        wp.copy(self.grad, self.tape.gradients[self.dq])
        self.tape.zero()

    def _residuals(self, q):
        self.residuals.zero_()

        def _do(obj, offset, q_view, out):
            obj.compute_residuals(q_view, out, offset)

        self._for_objectives(_do, q, self.residuals)

    def _for_objectives(self, fn, *extra):
        for obj, offset in zip(self.objectives, self.offsets):
            fn(obj, offset, *extra)
