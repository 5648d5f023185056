"""A stretch block of the forward solve: its methods run only inside the solver's suspension."""

import warp as wp


# expect WCT010: the solver calls these methods (on blocks it cannot type) only inside
# suspended_tape(): no tape records them, neither the caller's around step() nor the adjoint's.
@wp.kernel  # expect: WCT010
def stretch_assemble(x: wp.array(dtype=float), diag: wp.array(dtype=float)):
    i = wp.tid()
    diag[i] = 1.0 + x[i] * x[i]


@wp.kernel
def stretch_relax(x: wp.array(dtype=float), diag: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] - 0.1 * x[i] / diag[i]


class Stretch:
    def __init__(self, n):
        self.diag = wp.zeros(n, dtype=float, device="cpu")

    def assemble(self, x):
        wp.launch(stretch_assemble, dim=x.shape[0], inputs=[x, self.diag], device="cpu")

    def relax(self, x):
        wp.launch(stretch_relax, dim=x.shape[0], inputs=[x, self.diag], device="cpu")

    def bind(self, x):
        return x
