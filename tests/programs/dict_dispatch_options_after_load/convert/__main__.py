"""Normalise a float32 and a float64 batch."""

import numpy as np
import warp as wp

from convert import kernels
from convert.normalizer import Normalizer


def main():
    wp.init()
    # silent: WCT006 — before any launch: the module is built once with these options.
    kernels.forward_only()
    normalizer = Normalizer(full_scale=4096.0)
    a = wp.array(np.arange(16, dtype=np.float32), device="cpu")
    normalizer(a)
    # expect WCT006: normalizer(a) launched KERNELS[float32] of convert.kernels just above;
    # changing that module's options now hashes and builds it again.
    kernels.use_fast_math()  # expect: WCT006
    b = wp.array(np.arange(16, dtype=np.float64), device="cpu")
    normalizer(b)
    print("a", float(a.numpy()[-1]), "b", float(b.numpy()[-1]))


if __name__ == "__main__":
    main()
