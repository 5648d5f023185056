"""Six small kernels in six modules with precompiled headers turned off by the program.

Without the header every module build parses Warp's headers again (~1.3 s each on CPU);
with it, the first build of the process makes the header and the others reuse it
(~0.1-0.3 s each): the `precompiled-headers` lever's effect is several seconds.
"""

import warp as wp

wp.config.use_precompiled_headers = False  # the line the lever's advice points at
wp.config.enable_backward = False


@wp.kernel(module="unique")
def fill(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


@wp.kernel(module="unique")
def double(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * 2.0


@wp.kernel(module="unique")
def shift(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 3.0


@wp.kernel(module="unique")
def negate(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = -a[i]


@wp.kernel(module="unique")
def square(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * a[i]


@wp.kernel(module="unique")
def halve(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * 0.5


if __name__ == "__main__":
    a = wp.zeros(8, dtype=float, device="cpu")
    for kernel in (fill, double, shift, negate, square, halve):
        wp.launch(kernel, dim=8, inputs=[a], device="cpu")
    wp.synchronize()
