"""Test cases: each launches one kernel and checks the result."""

import numpy as np
import warp as wp

from suite.kernels import cube, square


def check_square(device):
    x = wp.array(np.arange(8, dtype=np.float32), device=device)
    y = wp.zeros_like(x)
    wp.launch(square, dim=x.shape, inputs=[x, y], device=device)
    assert np.allclose(y.numpy(), np.arange(8) ** 2)


def check_cube(device):
    x = wp.array(np.arange(8, dtype=np.float32), device=device)
    y = wp.zeros_like(x)
    wp.launch(cube, dim=x.shape, inputs=[x, y], device=device)
    assert np.allclose(y.numpy(), np.arange(8) ** 3)


CASES = [check_square, check_cube]
