"""Run three steps."""

import warp as wp

wp.config.enable_backward = False  # forward-only: set before any kernel module exists

from fit.trainer import Trainer  # noqa: E402


def main():
    wp.init()
    x = wp.full(16, 1.0, dtype=float, device="cpu")
    y = wp.zeros(16, dtype=float, device="cpu")
    trainer = Trainer()
    for _ in range(3):
        trainer.step(x, y)
    print("y", float(y.numpy()[0]))


if __name__ == "__main__":
    main()
