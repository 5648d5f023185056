"""Scale and clamp a float32 array, then a float64 one."""

import warp as wp

from stencils.kernels import bundle_for, lookup


def apply(kind, name, x, value):
    kernel = lookup(kind, name)
    if kernel is None:
        raise KeyError(name)
    wp.launch(kernel, dim=x.shape, inputs=[x, value])


def main():
    wp.init()
    wp.set_device("cpu")
    for dtype in (wp.float32, wp.float64):
        x = wp.ones(8, dtype=dtype)
        apply("affine", "scale", x, dtype(3.0))
        kernels = bundle_for("affine")
        wp.launch(kernels.clamp, dim=x.shape, inputs=[x, dtype(2.0)])
        print(dtype.__name__, x.numpy()[0])


if __name__ == "__main__":
    main()
