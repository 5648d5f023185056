"""Stage factories: each makes a per-pixel kernel specialised on its parameter."""

import warp as wp


# expect WCT002 at the default (x4, one per factory): no caller passes `module`, so each stage
# kernel gets a module of its own, four builds where one would do.
# expect WCT003 (x4, at each kernel): Pipeline.run() calls the factories on every frame; the
# captured values never change, so nothing is rebuilt, but each frame re-declares the kernels
# (~0.5 ms each on CPU, 20-45x the launch of a kept kernel).
def make_exposure(gain: float, module: str = "unique"):  # expect: WCT002
    @wp.kernel(module=module)
    def exposure(img: wp.array(dtype=float)):  # expect: WCT003
        i = wp.tid()
        img[i] = img[i] * gain

    return exposure


# expect WCT002 and WCT003, as for make_exposure.
def make_black_level(level: float, module: str = "unique"):  # expect: WCT002
    @wp.kernel(module=module)
    def black_level(img: wp.array(dtype=float)):  # expect: WCT003
        i = wp.tid()
        img[i] = wp.max(img[i] - level, 0.0)

    return black_level


# expect WCT002 and WCT003, as for make_exposure.
def make_threshold(t: float, module: str = "unique"):  # expect: WCT002
    @wp.kernel(module=module)
    def threshold(img: wp.array(dtype=float), mask: wp.array(dtype=float)):  # expect: WCT003
        i = wp.tid()
        mask[i] = wp.where(img[i] > t, 1.0, 0.0)

    return threshold


# expect WCT002 and WCT003, as for make_exposure.
def make_blend(weight: float, module: str = "unique"):  # expect: WCT002
    @wp.kernel(module=module)
    def blend(img: wp.array(dtype=float), mask: wp.array(dtype=float)):  # expect: WCT003
        i = wp.tid()
        img[i] = (1.0 - weight) * img[i] + weight * mask[i]

    return blend
