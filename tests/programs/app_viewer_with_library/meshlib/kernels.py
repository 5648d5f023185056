"""Kernels of the mesh operators."""

import warp as wp


# silent: WCT010 — a library whose callers may differentiate; and the only application in
# this project (viewer/__main__.py) turns backward off at its entry point, before import.
@wp.kernel
def face_normals(p: wp.array(dtype=wp.vec3), tris: wp.array(dtype=wp.vec3i), n: wp.array(dtype=wp.vec3)):
    t = wp.tid()
    a = p[tris[t][0]]
    b = p[tris[t][1]]
    c = p[tris[t][2]]
    n[t] = wp.normalize(wp.cross(b - a, c - a))


@wp.kernel
def laplacian_smooth(p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3), w: float):
    i = wp.tid()
    m = p.shape[0]
    out[i] = p[i] + w * ((p[(i + m - 1) % m] + p[(i + 1) % m]) * 0.5 - p[i])
