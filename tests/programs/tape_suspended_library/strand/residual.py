"""The residual the adjoint differentiates, on a tape of its own."""

import warp as wp


# silent: WCT010 — the adjoint launches it inside a wp.Tape opened within the suspension and
# calls tape.backward(): its adjoint runs.
@wp.kernel
def residual(x: wp.array(dtype=float), f: wp.array(dtype=float), r: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(r, 0, x[i] * x[i] + f[i])
