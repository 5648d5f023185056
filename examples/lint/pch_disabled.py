"""Precompiled headers switched off: every CPU module parses Warp's headers (WCT012)."""

import warp as wp

wp.config.use_precompiled_headers = False


@wp.kernel
def add(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + b[i]


if __name__ == "__main__":
    a = wp.ones(4, dtype=float, device="cpu")
    b = wp.ones(4, dtype=float, device="cpu")
    wp.launch(add, dim=4, inputs=[a, b], device="cpu")
    print(a.numpy())
