"""A few clipped SGD steps."""

import warp as wp

wp.config.enable_backward = False  # the gradients here are given, not differentiated

from optim.clip import GradClipper, sgd  # noqa: E402


def main():
    wp.init()
    wp.set_device("cpu")
    params = wp.zeros(16, dtype=float)
    clipper = GradClipper(max_norm=0.5)
    for step in range(6):
        grads = wp.full(16, float(step), dtype=float)
        clipper(grads)
        wp.launch(sgd, dim=params.shape, inputs=[params, grads, 0.1])
    print("p", float(params.numpy()[0]))


if __name__ == "__main__":
    main()
