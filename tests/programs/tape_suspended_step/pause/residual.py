"""The residual the adjoint differentiates, on a tape of its own."""

import warp as wp


# silent: WCT010 — the solver's sensitivity() launches this inside a wp.Tape opened within
# the suspension and calls tape.backward(): its adjoint runs.
@wp.kernel
def residual(q: wp.array(dtype=float), target: wp.array(dtype=float), r: wp.array(dtype=float)):
    i = wp.tid()
    d = q[i] - target[i]
    wp.atomic_add(r, 0, d * d)
