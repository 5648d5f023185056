"""One module launched at three block_dims: built three times (WCT009)."""

import warp as wp

TILE = 8


@wp.kernel
def scale(a: wp.array2d(dtype=float), s: float):
    i, j = wp.tid()
    a[i, j] = a[i, j] * s


@wp.kernel
def transpose(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    i, j = wp.tid()
    b[j, i] = a[i, j]


def step(a, b, device):
    wp.launch(scale, dim=a.shape, inputs=[a, 0.5], device=device)  # block_dim 256 (default)
    wp.launch(transpose, dim=a.shape, inputs=[a, b], block_dim=TILE * TILE, device=device)  # a second build


def tuned(a, device):
    size, _ = wp.get_suggested_block_size(scale, device)  # loads the module at 256
    wp.launch(scale, dim=a.shape, inputs=[a, 2.0], block_dim=size, device=device)  # and again at `size`


if __name__ == "__main__":
    device = "cuda:0" if wp.is_cuda_available() else "cpu"
    a = wp.ones((64, 64), dtype=float, device=device)
    b = wp.zeros((64, 64), dtype=float, device=device)
    step(a, b, device)
    if device != "cpu":
        tuned(a, device)
