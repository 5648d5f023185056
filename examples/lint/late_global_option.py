"""Forward-only simulation whose `enable_backward = False` arrives too late (WCT001).

The kernels below are defined (and their Warp module created, copying wp.config) before
the option is set, so backward code is still generated and compiled for them.
"""

import warp as wp


@wp.kernel
def integrate(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), dt: float):
    i = wp.tid()
    x[i] = x[i] + v[i] * dt


wp.config.enable_backward = False  # too late for `integrate`'s module

if __name__ == "__main__":
    n = 1024
    x = wp.zeros(n, dtype=wp.vec3, device="cpu")
    v = wp.ones(n, dtype=wp.vec3, device="cpu")
    for _ in range(10):
        wp.launch(integrate, dim=n, inputs=[x, v, 0.01], device="cpu")
    print(x.numpy()[0])
