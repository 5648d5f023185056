"""The tone curve and its gradient (the curve's slope, calculus: no autodiff here)."""

import warp as wp


# expect WCT010: the library's code never asks for gradients (no requires_grad, no tape, no
# *_grad parameter): its docstrings' words ("gradients", "wp.Tape", "differentiable") decide
# nothing, so this module's own option is the fix, as a warning.
@wp.kernel  # expect: WCT010
def reinhard(img: wp.array(dtype=float), exposure: float):
    i = wp.tid()
    v = img[i] * exposure
    img[i] = v / (1.0 + v)
