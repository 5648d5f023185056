"""Element kernels, generic over the scalar type."""

from typing import Any

import warp as wp

wp.set_module_options({"enable_backward": False})


@wp.kernel
def stiffness_diag(h: wp.array(dtype=Any), k: wp.array(dtype=Any)):
    i = wp.tid()
    k[i] = h.dtype(2.0) / h[i]


# silent: WCT007 — declared at import, before anything is launched.
wp.overload(stiffness_diag, {"h": wp.array(dtype=wp.float32), "k": wp.array(dtype=wp.float32)})
