"""A script that launches one kernel, then defines the next in the same module (WCT007)."""

import warp as wp

n = 128
x = wp.zeros(n, dtype=float, device="cpu")


@wp.kernel
def fill(x: wp.array(dtype=float), value: float):
    i = wp.tid()
    x[i] = value


wp.launch(fill, dim=n, inputs=[x, 1.0], device="cpu")  # builds this file's module


@wp.kernel
def square(x: wp.array(dtype=float)):  # joins the module: it is built again, whole
    i = wp.tid()
    x[i] = x[i] * x[i]


wp.launch(square, dim=n, inputs=[x], device="cpu")
print(x.numpy()[:4])
