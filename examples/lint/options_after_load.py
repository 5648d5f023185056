"""Module options changed after the first launch: the module is built twice (WCT006)."""

import warp as wp


@wp.kernel
def relax(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 0.5 * (x[i] + y[i])


def solve(x, y, iterations):
    wp.launch(relax, dim=x.shape, inputs=[x, y], device=x.device)  # first load
    # Only now do we decide we never differentiate this module: a second hash, a second build.
    wp.set_module_options({"enable_backward": False})
    for _ in range(iterations):
        wp.launch(relax, dim=x.shape, inputs=[x, y], device=x.device)


if __name__ == "__main__":
    x = wp.ones(64, dtype=float, device="cpu")
    y = wp.zeros(64, dtype=float, device="cpu")
    solve(x, y, 8)
    print(y.numpy()[:4])
