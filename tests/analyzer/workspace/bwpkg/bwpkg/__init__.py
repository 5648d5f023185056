import warp as wp

wp.config.enable_backward = False

from bwpkg.fields import advect  # noqa: E402
