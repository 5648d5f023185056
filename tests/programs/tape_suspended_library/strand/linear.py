"""The adjoint's preconditioner: run by a tape.record_func callback, in backward."""

import warp as wp


# expect WCT010: launched only in the callback the adjoint's tape runs in tape.backward(),
# where no tape records: its adjoint code is never run.
@wp.kernel  # expect: WCT010
def precondition(x: wp.array(dtype=float), g: wp.array(dtype=float)):
    i = wp.tid()
    g[i] = g[i] / (1.0 + x[i] * x[i])
