"""Wave equation kernels and the example object."""

import warp as wp

# The whole example is forward-only: this file's module is made without backward code.
wp.set_module_options({"enable_backward": False})


@wp.kernel
def wave_step(u0: wp.array(dtype=float), u1: wp.array(dtype=float), u2: wp.array(dtype=float), c2: float):
    i = wp.tid()
    n = u1.shape[0]
    lap = u1[(i + 1) % n] - 2.0 * u1[i] + u1[(i + n - 1) % n]
    u2[i] = 2.0 * u1[i] - u0[i] + c2 * lap


class Example:
    def __init__(self, n: int = 64, device: str = "cpu"):
        self.u = [wp.zeros(n, dtype=float, device=device) for _ in range(3)]
        self.device = device

    def step(self):
        u0, u1, u2 = self.u
        wp.launch(wave_step, dim=u1.shape, inputs=[u0, u1, u2, 0.25], device=self.device)
        self.u = [u1, u2, u0]
