"""Evaluate the network on a few inputs."""

import warp as wp

wp.config.enable_backward = False  # inference only: set before any kernel module exists

from tinynn.layers import Dense  # noqa: E402


def main():
    wp.init()
    layers = [Dense(4, 8), Dense(8, 2)]
    for sample in range(5):
        x = wp.full(4, float(sample), dtype=float, device="cpu")
        for layer in layers:
            x = layer(x)
    print("out", x.numpy())


if __name__ == "__main__":
    main()
