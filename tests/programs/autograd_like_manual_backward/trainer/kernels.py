"""Forward and hand-written backward kernels of the scale operation."""

import warp as wp


# expect WCT010: Scale.backward() launches scale_backward, a hand-written kernel; nothing
# runs Warp's generated adjoints of this module (no wp.Tape over it, no adjoint=True), so
# its backward code is built for nothing.
@wp.kernel  # expect: WCT010
def scale_forward(x: wp.array(dtype=float), s: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * s[0]


@wp.kernel
def scale_backward(x: wp.array(dtype=float), s: wp.array(dtype=float), gy: wp.array(dtype=float), gx: wp.array(dtype=float), gs: wp.array(dtype=float)):
    i = wp.tid()
    gx[i] = gy[i] * s[0]
    wp.atomic_add(gs, 0, gy[i] * x[i])


@wp.kernel
def sgd(p: wp.array(dtype=float), g: wp.array(dtype=float), lr: float):
    i = wp.tid()
    p[i] = p[i] - lr * g[i]
