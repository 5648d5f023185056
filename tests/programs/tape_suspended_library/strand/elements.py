"""An element block whose kernels a factory makes, each a module of its own."""

from types import SimpleNamespace

import warp as wp


def element_kernels(stiffness: float):
    # expect WCT010: launched only from assemble(), which the solver runs inside suspended_tape().
    @wp.kernel(module="unique")  # expect: WCT010
    def penalty(x: wp.array(dtype=float), p: wp.array(dtype=float)):
        i = wp.tid()
        p[i] = stiffness * (1.0 + x[i] * x[i])

    # silent: WCT010 — the adjoint launches it inside a wp.Tape and calls tape.backward().
    @wp.kernel(module="unique")
    def forces(x: wp.array(dtype=float), f: wp.array(dtype=float)):
        i = wp.tid()
        f[i] = stiffness * x[i] * x[i] * x[i]

    return SimpleNamespace(penalty=penalty, forces=forces)


class Element:
    def __init__(self, n):
        self.k = element_kernels(2.0)
        self.p = wp.zeros(n, dtype=float, device="cpu")

    def _launch(self, kernel, inputs):
        wp.launch(kernel, dim=inputs[0].shape[0], inputs=inputs, device="cpu")

    def assemble(self, x):
        self._launch(self.k.penalty, [x, self.p])

    def relax(self, x):
        """A penalty element relaxes nothing: its stiffness enters through assemble()."""

    def bind(self, x):
        return x
