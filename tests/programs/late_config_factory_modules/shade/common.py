"""Shared Warp helpers and the shader factories.

At import this file defines only a Warp function and a struct (they create its Warp module,
which holds no kernel); every kernel is made later, by a factory, in a named module of its own.
"""

import warp as wp


@wp.struct
class Tone:
    gain: float
    bias: float


@wp.func
def shade(x: float, tone: Tone):
    return wp.clamp(x * tone.gain + tone.bias, 0.0, 1.0)


def make_tint(channel: str):
    # A module per channel: the factory's module is created at its first call.
    @wp.kernel(module=f"shade.tint_{channel}")
    def tint(img: wp.array(dtype=float), tone: Tone):
        i = wp.tid()
        img[i] = shade(img[i], tone)

    return tint


def make_fade(steps: int):
    # The kernel captures `steps`: one module per request is deliberate.
    @wp.kernel(module="unique")
    def fade(img: wp.array(dtype=float)):
        i = wp.tid()
        for _ in range(steps):
            img[i] = img[i] * 0.5

    return fade
