"""A kernel that asks for its own options but forgets to own its module (WCT005)."""

import warp as wp


@wp.kernel(module_options={"enable_backward": False})
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


if __name__ == "__main__":
    n = 1024
    x = wp.ones(n, dtype=float, device="cpu")
    y = wp.zeros(n, dtype=float, device="cpu")
    wp.launch(saxpy, dim=n, inputs=[x, y, 2.0], device="cpu")
    print(y.numpy()[:4])
