"""Quality presets: compile options of the post-effects module."""

import warp as wp

PRESETS = {"high": {"fast_math": False}, "fast": {"fast_math": True}}


def apply_quality(name: str):
    wp.set_module_options(PRESETS[name], module="vision.postfx")
