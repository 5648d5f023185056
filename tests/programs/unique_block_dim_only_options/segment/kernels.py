"""Kernels for segmentation; launched at block_dim 64 everywhere."""

import warp as wp

BLOCK = 64
wp.set_module_options({"block_dim": BLOCK})


@wp.kernel
def normalize(img: wp.array(dtype=float), lo: float, hi: float):
    i = wp.tid()
    img[i] = (img[i] - lo) / (hi - lo)


@wp.kernel
def count(mask: wp.array(dtype=int), out: wp.array(dtype=int)):
    wp.atomic_add(out, 0, mask[wp.tid()])


def make_threshold(level: float):
    # silent: WCT013 — the file's only option is block_dim, and every launch of this kernel
    # passes block_dim=BLOCK itself, so its own module misses nothing.
    # silent: WCT002 — one kernel per requested level (captured): in a shared module each new
    # level would rebuild it; module="unique" is passed on purpose.
    # silent: WCT003 — segment() calls this once per level, from main(), not per frame.
    @wp.kernel(module="unique")
    def threshold(img: wp.array(dtype=float), mask: wp.array(dtype=int)):
        i = wp.tid()
        mask[i] = wp.where(img[i] > level, 1, 0)

    return threshold


def segment(img: wp.array, levels) -> list:
    counts = []
    wp.launch(normalize, dim=img.shape, inputs=[img, 0.0, 255.0], block_dim=BLOCK, device=img.device)
    for level in levels:
        mask = wp.zeros(img.shape, dtype=int, device=img.device)
        out = wp.zeros(1, dtype=int, device=img.device)
        wp.launch(make_threshold(level), dim=img.shape, inputs=[img, mask], block_dim=BLOCK, device=img.device)
        wp.launch(count, dim=img.shape, inputs=[mask, out], block_dim=BLOCK, device=img.device)
        counts.append(int(out.numpy()[0]))
    return counts
