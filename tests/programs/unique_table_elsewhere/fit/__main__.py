"""Three steps of penalties."""

import warp as wp

wp.config.enable_backward = False  # forward-only: set before any kernel module exists

from fit.trainer import Trainer  # noqa: E402


def main():
    wp.init()
    x = wp.full(16, 0.5, dtype=float, device="cpu")
    loss = wp.zeros(1, dtype=float, device="cpu")
    trainer = Trainer()
    for _ in range(3):
        print("loss", trainer.step(x, loss))


if __name__ == "__main__":
    main()
