"""The loss is differentiated with Warp's own adjoints, on a wp.Tape."""

import warp as wp


# silent: WCT010 — mse_loss runs under a wp.Tape and tape.backward() launches its adjoint.
@wp.kernel
def mse_loss(y: wp.array(dtype=float), target: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    d = y[i] - target[i]
    wp.atomic_add(loss, 0, d * d)


def loss_and_grad(y: wp.array, target: wp.array):
    loss = wp.zeros(1, dtype=float, device=y.device, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(mse_loss, dim=y.shape, inputs=[y, target, loss], device=y.device)
    tape.backward(loss=loss)
    return loss, y.grad
