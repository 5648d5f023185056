"""The model's kernels: the forward pass at import, the penalty on first request."""

import functools

import warp as wp


@wp.kernel
def forward(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 2.0 * x[i]


@functools.cache
def _penalty_kernel():
    # silent: WCT003 — memoized: the kernel is made once, on the first request
    @wp.kernel
    def penalty(y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = y[i] * 0.5

    return penalty


class Model:
    def forward(self, x, y):
        wp.launch(forward, dim=x.shape, inputs=[x, y], device="cpu")

    def regularize(self, y):
        # expect WCT007: Trainer.step() runs forward() first, so the first request defines
        # `penalty` in fit.model after its launch loaded it: the module is built again, whole.
        wp.launch(_penalty_kernel(), dim=y.shape, inputs=[y], device="cpu")  # expect: WCT007
