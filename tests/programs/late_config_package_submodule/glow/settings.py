"""Run settings for a forward-only filter run."""

import warp as wp


def configure_forward_only():
    # expect WCT001: `from glow.settings import ...` runs glow/__init__.py first, whose star
    # import already created `glow.kernels`: the module keeps enable_backward=True and builds
    # its adjoint code although this says False.
    wp.config.enable_backward = False  # expect: WCT001
