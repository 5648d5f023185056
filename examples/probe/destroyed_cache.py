"""A program that defeats the kernel cache: every run, warm or not, compiles again."""

import warp as wp

wp.config.cache_kernels = False  # the cache is never consulted


@wp.kernel
def square(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * a[i]


if __name__ == "__main__":
    a = wp.ones(8, dtype=float, device="cpu")
    wp.launch(square, dim=8, inputs=[a], device="cpu")
    wp.synchronize()
