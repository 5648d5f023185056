"""The residual kernel of the user's objective."""

import warp as wp


# silent: WCT010 — ReachObjective.compute_residuals launches it, and the library's optimizer
# calls that method (obj.compute_residuals on objectives it cannot type) inside its wp.Tape
# and runs tape.backward(): its adjoint runs.
@wp.kernel
def reach_residual(q: wp.array(dtype=float), target: wp.array(dtype=float), offset: int,
                   residuals: wp.array(dtype=float)):  # fmt: skip
    i = wp.tid()
    residuals[offset + i] = q[i] - target[i]
