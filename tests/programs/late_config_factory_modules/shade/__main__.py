"""Tint, fade and invert an image, forward only."""

import warp as wp

from shade.common import Tone, make_fade, make_tint

# silent: WCT001 — shade.common defines only a Warp function and a struct at import; its
# kernels are made by the factories below, each in a module of its own created after this
# line (module=f"shade.tint_{channel}", module="unique"): every one of them gets False.
wp.config.enable_backward = False

from shade.legacy import invert  # noqa: E402


def main():
    # expect WCT001: shade.legacy (imported above) defined `invert` at import: its module
    # copied max_unroll then and builds with the old value.
    wp.config.max_unroll = 2  # expect: WCT001
    wp.init()
    img = wp.full(16, 0.5, dtype=float, device="cpu")
    tone = Tone()
    tone.gain, tone.bias = 1.5, 0.1
    for channel in ("red", "green"):
        wp.launch(make_tint(channel), dim=16, inputs=[img, tone], device="cpu")
    wp.launch(make_fade(3), dim=16, inputs=[img], device="cpu")
    wp.launch(invert, dim=16, inputs=[img], device="cpu")
    print("pixel", float(img.numpy()[0]))


if __name__ == "__main__":
    main()
