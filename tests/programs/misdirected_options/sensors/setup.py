"""Module options applied before anything is launched."""

import warp as wp


def configure():
    # silent: WCT014 — targets the module that owns the kernels, by name.
    # silent: WCT006 — configure() runs before the first launch of sensors.filters.
    wp.set_module_options({"enable_backward": False}, module="sensors.filters")
