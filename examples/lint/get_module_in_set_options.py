"""Configuring a named module with a `wp.Module` object (WCT004, Warp <= 1.16 only).

Lint with `target-warp-version = "1.16"` (or a `warp-lang>=1.16` requirement) to see it.
"""

import warp as wp


@wp.kernel
def scale(x: wp.array(dtype=float), s: float):
    i = wp.tid()
    x[i] = x[i] * s


# Warp 1.16 reads `module.__name__` here: a wp.Module has none.
wp.set_module_options({"enable_backward": False}, module=wp.get_module(__name__))

if __name__ == "__main__":
    x = wp.ones(16, dtype=float, device="cpu")
    wp.launch(scale, dim=16, inputs=[x, 2.0], device="cpu")
    print(x.numpy()[:4])
