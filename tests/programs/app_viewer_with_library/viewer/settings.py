"""Viewer-wide compile settings."""

import warp as wp

# expect WCT014: viewer/settings.py defines no kernels: a bare set_module_options configures
# its own empty module; the kernels of viewer.scene and meshlib never see max_unroll.
wp.set_module_options({"max_unroll": 4})  # expect: WCT014

BACKGROUND = (0.1, 0.1, 0.1)
