"""Public operators."""

import warp as wp

from smoothlib.kernels import assign, laplacian_step


def smooth_out(x: wp.array, out: wp.array, alpha: float = 0.25) -> wp.array:
    """out = one Laplacian smoothing step of x; x is not modified (differentiable)."""
    wp.launch(laplacian_step, dim=x.shape, inputs=[x, out, alpha], device=x.device)
    return out


def smooth(x: wp.array, iterations: int = 1, alpha: float = 0.25) -> wp.array:
    """Smooth `iterations` times; the result has requires_grad like its input."""
    current = x
    for _ in range(iterations):
        nxt = wp.empty_like(current, requires_grad=x.requires_grad)
        smooth_out(current, nxt, alpha)
        current = nxt
    if current is x:
        current = wp.empty_like(x, requires_grad=x.requires_grad)
        wp.launch(assign, dim=x.shape, inputs=[x, current], device=x.device)
    return current
