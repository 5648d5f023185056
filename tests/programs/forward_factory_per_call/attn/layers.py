"""Two layers using the same factory differently."""

import warp as wp

from attn.kernels import make_softmax


class SoftmaxLayer:
    def __init__(self, temperature: float = 1.0):
        self.temperature = temperature

    def forward(self, x: wp.array) -> wp.array:
        out = wp.empty_like(x)
        wp.launch(make_softmax(self.temperature), dim=x.shape[0], inputs=[x, out], device=x.device)
        return out


class CachedSoftmaxLayer:
    def __init__(self, temperature: float = 1.0):
        # silent: WCT003 — once per layer object, from __init__.
        self.kernel = make_softmax(temperature)

    def forward(self, x: wp.array) -> wp.array:
        out = wp.empty_like(x)
        wp.launch(self.kernel, dim=x.shape[0], inputs=[x, out], device=x.device)
        return out
