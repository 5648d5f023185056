"""Plain SGD with an exponentially decayed learning rate."""

import warp as wp


# expect WCT010: nothing differentiates the optimizer: its kernels run after tape.backward(),
# outside any tape, yet this module compiles backward code for them.
@wp.kernel  # expect: WCT010
def zero(g: wp.array(dtype=float)):
    g[wp.tid()] = 0.0


def make_update(lr: float):
    # expect WCT003: SGD.step() passes the decayed learning rate, a new value on every step; it
    # is captured as a constant, so each step gives train.optim a new hash and a new build.
    @wp.kernel
    def update(p: wp.array(dtype=float), g: wp.array(dtype=float)):  # expect: WCT003
        i = wp.tid()
        p[i] = p[i] - lr * g[i]

    return update


class SGD:
    def __init__(self, params, lr: float = 0.05, decay: float = 0.9):
        self.params = params
        self.lr = lr
        self.decay = decay

    def step(self):
        update = make_update(self.lr)
        for p in self.params:
            flat, grad = p.flatten(), p.grad.flatten()
            wp.launch(update, dim=flat.shape, inputs=[flat, grad], device=p.device)
            wp.launch(zero, dim=grad.shape, inputs=[grad], device=p.device)
        self.lr *= self.decay
