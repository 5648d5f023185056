"""An older filter, defined at import: its module copies wp.config's options right then."""

import warp as wp


@wp.kernel
def invert(img: wp.array(dtype=float)):
    i = wp.tid()
    img[i] = 1.0 - img[i]
