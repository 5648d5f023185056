"""Fit a scale factor to a target."""

import numpy as np
import warp as wp

from trainer.functions import Scale
from trainer.kernels import sgd
from trainer.loss import loss_and_grad


def main():
    wp.init()
    wp.set_device("cpu")
    x = wp.array(np.arange(1, 9, dtype=np.float32))
    target = wp.array(3.0 * np.arange(1, 9, dtype=np.float32))
    s = wp.array([1.0], dtype=float)
    for _ in range(5):
        ctx, y = Scale.apply(x, s)
        loss, grad_y = loss_and_grad(y, target)
        _, grad_s = Scale.backward(ctx, grad_y)
        wp.launch(sgd, dim=1, inputs=[s, grad_s, 0.001])
    print("s", float(s.numpy()[0]), "loss", float(loss.numpy()[0]))


if __name__ == "__main__":
    main()
