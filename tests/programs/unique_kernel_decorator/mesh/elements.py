"""Element kernels."""

import warp as wp

from mesh.warp_utils import element_kernel


@element_kernel()
def area(x: wp.array(dtype=wp.vec3), tris: wp.array(dtype=wp.vec3i), out: wp.array(dtype=float)):
    t = wp.tid()
    a = x[tris[t][0]]
    b = x[tris[t][1]]
    c = x[tris[t][2]]
    out[t] = 0.5 * wp.length(wp.cross(b - a, c - a))


@element_kernel()
def centroid(x: wp.array(dtype=wp.vec3), tris: wp.array(dtype=wp.vec3i), out: wp.array(dtype=wp.vec3)):
    t = wp.tid()
    out[t] = (x[tris[t][0]] + x[tris[t][1]] + x[tris[t][2]]) / 3.0


# silent: WCT010 — this use of the decorator turns backward code off itself.
@element_kernel(enable_backward=False)
def normal(x: wp.array(dtype=wp.vec3), tris: wp.array(dtype=wp.vec3i), out: wp.array(dtype=wp.vec3)):
    t = wp.tid()
    a = x[tris[t][0]]
    out[t] = wp.normalize(wp.cross(x[tris[t][1]] - a, x[tris[t][2]] - a))
