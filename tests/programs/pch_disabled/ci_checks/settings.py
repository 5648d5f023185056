"""Warp settings for CI machines."""

import warp as wp


def configure():
    # expect WCT012: without the precompiled header every CPU module compiles Warp's headers
    # again (about a second or more per module).
    wp.config.use_precompiled_headers = False  # expect: WCT012
    # silent: WCT012 — reading the setting changes nothing.
    print("precompiled headers:", wp.config.use_precompiled_headers)
