"""A package that sets options in its __init__, where no kernels live (WCT014).

Run from examples/lint: python -m misdirected_module_options
"""

import warp as wp

wp.set_module_options({"enable_backward": False})  # configures this empty module only

from . import kernels  # noqa: E402,F401
