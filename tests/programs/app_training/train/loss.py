"""Mean squared error, differentiated on the tape."""

import warp as wp


# silent: WCT010 — launched on the wp.Tape whose backward() runs its adjoint.
@wp.kernel
def mse(pred: wp.array2d(dtype=float), target: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    d = pred[i, 0] - target[i]
    wp.atomic_add(loss, 0, d * d / float(target.shape[0]))


@wp.kernel
def huber(pred: wp.array2d(dtype=float), target: wp.array(dtype=float), delta: float, loss: wp.array(dtype=float)):
    i = wp.tid()
    d = wp.abs(pred[i, 0] - target[i])
    value = wp.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    wp.atomic_add(loss, 0, value / float(target.shape[0]))
