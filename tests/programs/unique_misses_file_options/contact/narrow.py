"""Narrow-phase kernels, forward only."""

import warp as wp

wp.set_module_options({"enable_backward": False})


@wp.kernel
def sphere_overlap(p: wp.array(dtype=wp.vec3), r: float, hits: wp.array(dtype=int)):
    i, j = wp.tid()
    if i < j and wp.length(p[i] - p[j]) < 2.0 * r:
        wp.atomic_add(hits, 0, 1)


@wp.kernel
def clear(hits: wp.array(dtype=int)):
    hits[wp.tid()] = 0


# expect WCT013: kept in a module of its own (so editing it does not rebuild the others),
# but that module does not get this file's enable_backward=False: it copies wp.config and
# builds backward code that nothing uses.
# silent: WCT010 — the backward code here is exactly what WCT013 reports; one finding.
@wp.kernel(module="unique")  # expect: WCT013
def penetration(p: wp.array(dtype=wp.vec3), r: float, depth: wp.array(dtype=float)):
    i = wp.tid()
    depth[i] = wp.max(r - wp.length(p[i]), 0.0)
