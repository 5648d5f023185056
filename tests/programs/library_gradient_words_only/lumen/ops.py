"""Public operators (forward only; gradients are disabled)."""

import warp as wp

from lumen.kernels import reinhard


def tonemap(img: wp.array, exposure: float = 1.0) -> wp.array:
    """Tone-map ``img`` in place. Not differentiable: do not record it on a tape."""
    wp.launch(reinhard, dim=img.shape, inputs=[img, exposure], device=img.device)
    return img
