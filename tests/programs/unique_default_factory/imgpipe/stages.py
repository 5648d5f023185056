"""Stage factories. Each returns a kernel specialised on its parameter."""

import warp as wp


# expect WCT002 at the default: no caller passes `module`, so every stage gets a module of
# its own and pays a build of its own; the stages could share this file's module.
def make_gain(gain: float, module: str = "unique"):  # expect: WCT002
    @wp.kernel(module=module)
    def apply_gain(img: wp.array(dtype=float)):
        i = wp.tid()
        img[i] = img[i] * gain

    return apply_gain


# expect WCT002 at the default, as for make_gain.
def make_offset(offset: float, module="unique"):  # expect: WCT002
    @wp.kernel(module=module)
    def apply_offset(img: wp.array(dtype=float)):
        i = wp.tid()
        img[i] = img[i] + offset

    return apply_offset


# silent: WCT002 — the default is the file's module; only a caller asking for "unique" splits.
def make_clamp(low: float, high: float, module=None):
    @wp.kernel(module=module)
    def apply_clamp(img: wp.array(dtype=float)):
        i = wp.tid()
        img[i] = wp.clamp(img[i], low, high)

    return apply_clamp


@wp.kernel
def fill(img: wp.array(dtype=float), value: float):
    img[wp.tid()] = value
