"""Run both layers over a few batches."""

import numpy as np
import warp as wp

wp.config.enable_backward = False  # inference only: set before any kernel module exists

from attn.layers import CachedSoftmaxLayer, SoftmaxLayer  # noqa: E402


def main():
    wp.init()
    per_call, cached = SoftmaxLayer(), CachedSoftmaxLayer()
    for batch in range(20):
        x = wp.array(np.full((4, 6), float(batch), dtype=np.float32), device="cpu")
        a = per_call.forward(x)
        b = cached.forward(x)
    print("row", a.numpy()[0].sum(), b.numpy()[0].sum())


if __name__ == "__main__":
    main()
