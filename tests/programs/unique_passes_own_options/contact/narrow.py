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


# silent: WCT013 — the kernel passes the file's enable_backward=False itself.
# silent: WCT002 — it also asks for fast_math, which the file's module does not use: its own
# module is the point.
@wp.kernel(module="unique", module_options={"enable_backward": False, "fast_math": True})
def penetration(p: wp.array(dtype=wp.vec3), r: float, depth: wp.array(dtype=float)):
    i = wp.tid()
    depth[i] = wp.max(r - wp.length(p[i]), 0.0)
