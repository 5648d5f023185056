"""Fixtures for the heat checks."""

import pytest
import warp as wp

from heatlib import kernels


def pytest_configure(config):
    # expect WCT001: conftest.py imported heatlib.kernels above, before pytest calls this
    # hook; that module already copied enable_backward, so this value never reaches it.
    wp.config.enable_backward = False  # expect: WCT001
    wp.init()


@pytest.fixture
def spike():
    u = wp.zeros(16, dtype=float, device="cpu")
    u.fill_(0.0)
    u_np = u.numpy()
    u_np[8] = 1.0
    return wp.array(u_np, device="cpu")


@pytest.fixture
def diffusion():
    return kernels
