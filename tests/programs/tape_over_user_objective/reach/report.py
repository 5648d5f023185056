"""What the user prints after solving: launched once, outside any tape."""

import warp as wp


# expect WCT010: launched only after the solve, where no tape records: its adjoint is never run.
@wp.kernel  # expect: WCT010
def distance(q: wp.array(dtype=float), target: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    d = q[i] - target[i]
    wp.atomic_add(out, 0, d * d)


def report(q, target):
    out = wp.zeros(1, dtype=float, device="cpu")
    wp.launch(distance, dim=q.shape[0], inputs=[q, target, out], device="cpu")
    return float(out.numpy()[0]) ** 0.5
