"""An autograd.Function-like protocol without torch: forward saves, backward is explicit."""

import warp as wp

from trainer.kernels import scale_backward, scale_forward


class Context:
    def save_for_backward(self, *values):
        self.saved = values


class Function:
    @classmethod
    def apply(cls, *args):
        ctx = Context()
        return ctx, cls.forward(ctx, *args)


class Scale(Function):
    @staticmethod
    def forward(ctx, x, s):
        y = wp.zeros_like(x, requires_grad=True)
        wp.launch(scale_forward, dim=x.shape, inputs=[x, s, y], device=x.device)
        ctx.save_for_backward(x, s)
        return y

    @staticmethod
    def backward(ctx, grad_y):
        x, s = ctx.saved
        gx = wp.zeros_like(x)
        gs = wp.zeros_like(s)
        wp.launch(scale_backward, dim=x.shape, inputs=[x, s, grad_y, gx, gs], device=x.device)
        return gx, gs
