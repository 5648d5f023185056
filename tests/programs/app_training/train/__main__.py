"""train [--epochs N]"""

import argparse

import warp as wp

from train.data import batches
from train.loss import mse
from train.metrics import abs_error
from train.model import MLP
from train.optim import SGD


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    wp.init()
    wp.set_device("cpu")
    model = MLP([2, 8, 1])
    optimizer = SGD(model.parameters())
    for epoch, (x, y) in enumerate(batches(args.epochs, 32)):
        loss = wp.zeros(1, dtype=float, requires_grad=True)
        tape = wp.Tape()
        with tape:
            pred = model(x)
            wp.launch(mse, dim=y.shape, inputs=[pred, y, loss])
        tape.backward(loss=loss)
        optimizer.step()
        tape.zero()
        err = wp.zeros(1, dtype=float)
        wp.launch(abs_error, dim=y.shape, inputs=[pred, y, err])
        print(f"epoch {epoch}: loss {float(loss.numpy()[0]):.4f} mae {float(err.numpy()[0]):.4f}")


if __name__ == "__main__":
    main()
