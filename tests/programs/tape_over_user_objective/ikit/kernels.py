"""The optimizer's own kernels."""

import warp as wp


# silent: WCT010 — the optimizer launches integrate inside its wp.Tape and runs tape.backward().
@wp.kernel
def integrate(q: wp.array(dtype=float), dq: wp.array(dtype=float), q_out: wp.array(dtype=float)):
    i = wp.tid()
    q_out[i] = q[i] + dq[i]


@wp.kernel
def descend(q: wp.array(dtype=float), grad: wp.array(dtype=float), rate: float):
    i = wp.tid()
    q[i] = q[i] - rate * grad[i]
