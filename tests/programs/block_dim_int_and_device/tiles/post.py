"""Post-processing, with a block size chosen per device."""

import warp as wp

wp.set_module_options({"enable_backward": False})


@wp.kernel
def relu(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = wp.max(x[i], 0.0)


@wp.kernel
def negate(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = -x[i]


def postprocess(x: wp.array, device: str):
    block_dim = 128 if "cuda" in device else 1
    wp.launch(negate, dim=x.shape, inputs=[x], block_dim=64, device=device)
    # expect WCT009: on a CUDA device this launches tiles.post at 128 after negate() ran it at
    # 64: two builds of the module there.
    wp.launch(relu, dim=x.shape, inputs=[x], block_dim=block_dim, device=device)  # expect: WCT009
