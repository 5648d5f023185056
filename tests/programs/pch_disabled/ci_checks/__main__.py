"""Run the CI checks."""

import numpy as np
import warp as wp

wp.config.enable_backward = False  # forward-only: set before any kernel module exists

from ci_checks import algebra, geometry  # noqa: E402
from ci_checks.settings import configure  # noqa: E402


def main():
    configure()
    wp.init()
    v = wp.full(8, wp.vec3(3.0, 4.0, 0.0), dtype=wp.vec3, device="cpu")
    out = wp.zeros(8, dtype=float, device="cpu")
    wp.launch(geometry.lengths, dim=8, inputs=[v, out], device="cpu")
    assert np.allclose(out.numpy(), 5.0)
    x = wp.zeros(8, dtype=float, device="cpu")
    wp.launch(algebra.fill, dim=8, inputs=[x, 1.0], device="cpu")
    wp.launch(algebra.axpy, dim=8, inputs=[x, x, 2.0], device="cpu")
    assert np.allclose(x.numpy(), 3.0)
    print("ok")


if __name__ == "__main__":
    main()
