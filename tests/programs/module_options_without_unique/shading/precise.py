"""The precise variant keeps Warp's defaults but wants its own unroll limit."""

import warp as wp


# silent: WCT005 — module="unique" is given, so module_options are accepted.
# silent: WCT002 — its options differ from the file's module: a module of its own is the point.
@wp.kernel(module="unique", module_options={"max_unroll": 1})
def shade_precise(n: wp.array(dtype=wp.vec3), out: wp.array(dtype=float), light: wp.vec3):
    i = wp.tid()
    out[i] = wp.max(wp.dot(wp.normalize(n[i]), light), 0.0)
