"""The file turns backward code off, but its unique kernel never hears of it (WCT013)."""

import warp as wp

wp.set_module_options({"enable_backward": False})


@wp.kernel(module="unique")
def integrate(x: wp.array(dtype=float), v: wp.array(dtype=float), dt: float):
    i = wp.tid()
    x[i] = x[i] + v[i] * dt


if __name__ == "__main__":
    x = wp.zeros(4, dtype=float, device="cpu")
    v = wp.ones(4, dtype=float, device="cpu")
    wp.launch(integrate, dim=4, inputs=[x, v, 0.1], device="cpu")
    print(x.numpy(), integrate.module.options["enable_backward"])  # True: backward was still built
