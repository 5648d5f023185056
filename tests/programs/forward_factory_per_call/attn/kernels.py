"""Softmax kernel factory."""

import warp as wp


def make_softmax(temperature: float):
    # expect WCT003: SoftmaxLayer.forward() calls this on every forward pass; the temperature
    # never changes, so Warp reuses the build, but each call re-declares the kernel (a per-call
    # cost, tens of times the launch of a kept kernel).
    @wp.kernel
    def softmax(x: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):  # expect: WCT003
        i = wp.tid()
        m = x[i, 0]
        for j in range(x.shape[1]):
            m = wp.max(m, x[i, j])
        total = float(0.0)
        for j in range(x.shape[1]):
            total += wp.exp((x[i, j] - m) / temperature)
        for j in range(x.shape[1]):
            out[i, j] = wp.exp((x[i, j] - m) / temperature) / total

    return softmax
