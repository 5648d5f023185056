import warp as wp


def _configure_warp():
    # Called by this package's own body: runs at import, before the kernels below are defined.
    wp.config.enable_backward = False


_configure_warp()

from bwpkg.fields import advect  # noqa: E402
