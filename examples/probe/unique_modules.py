"""module="unique" on stable kernels: one module (and one fixed build cost) per kernel."""

import warp as wp


@wp.kernel(module="unique")
def fill(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


@wp.kernel(module="unique")
def double(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * 2.0


@wp.kernel(module="unique")
def negate(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = -a[i]


if __name__ == "__main__":
    a = wp.zeros(8, dtype=float, device="cpu")
    for kernel in (fill, double, negate):
        wp.launch(kernel, dim=8, inputs=[a], device="cpu")
    wp.synchronize()
