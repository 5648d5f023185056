"""The forward step's kernels: launched only with the tape suspended."""

import warp as wp


# expect WCT010: the solver launches these inside suspended_tape(), which sets Warp's
# runtime tape to None: no tape records them, yet the module is built with backward code.
@wp.kernel  # expect: WCT010
def predict(q: wp.array(dtype=float), qd: wp.array(dtype=float), h: float, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = q[i] + h * qd[i]


@wp.kernel
def relax(q: wp.array(dtype=float), target: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = 0.5 * (q[i] + target[i])
