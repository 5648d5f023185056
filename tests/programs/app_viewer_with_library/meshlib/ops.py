"""Public operators (they allocate their outputs, so they can be taped)."""

import warp as wp

from meshlib.kernels import face_normals, laplacian_smooth


def vertex_normals(p: wp.array, tris: wp.array) -> wp.array:
    n = wp.zeros(tris.shape[0], dtype=wp.vec3, device=p.device, requires_grad=p.requires_grad)
    wp.launch(face_normals, dim=tris.shape, inputs=[p, tris, n], device=p.device)
    return n


def smooth_vertices(p: wp.array, weight: float = 0.5) -> wp.array:
    out = wp.empty_like(p, requires_grad=p.requires_grad)
    wp.launch(laplacian_smooth, dim=p.shape, inputs=[p, out, weight], device=p.device)
    return out


def precompile(device: str = "cpu"):
    # expect WCT011: two worker threads loading modules for the CPU: each builds its own
    # precompiled header, slower than loading serially on few cores.
    wp.force_load(device=device, max_workers=2)  # expect: WCT011
