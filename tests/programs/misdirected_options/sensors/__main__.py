"""Filter a noisy signal."""

import numpy as np
import warp as wp

import sensors.precision  # noqa: F401  (applies the numerics settings)
from sensors.filters import lowpass, rectify
from sensors.setup import configure


def main():
    configure()
    wp.init()
    x = wp.array(np.sin(np.linspace(0, 6, 64)).astype(np.float32), device="cpu")
    y = wp.zeros_like(x)
    wp.launch(lowpass, dim=x.shape, inputs=[x, y, 0.3], device="cpu")
    wp.launch(rectify, dim=y.shape, inputs=[y], device="cpu")
    print("energy", float((y.numpy() ** 2).sum()))


if __name__ == "__main__":
    main()
