"""Drawing kernels, and the scene that keeps them in a dict and draws with them."""

import numpy as np
import warp as wp

from meshlib import smooth_vertices, vertex_normals


@wp.kernel
def shade(n: wp.array(dtype=wp.vec3), light: wp.vec3, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.max(wp.dot(n[i], light), 0.0)


@wp.kernel
def outline(out: wp.array(dtype=float), threshold: float):
    i = wp.tid()
    if out[i] < threshold:
        out[i] = 0.0


class Scene:
    def __init__(self, device: str = "cpu"):
        ring = np.array([[np.cos(a), np.sin(a), 0.1 * a] for a in np.linspace(0, 6, 12)], dtype=np.float32)
        self.p = wp.array(ring, dtype=wp.vec3, device=device)
        self.tris = wp.array(np.array([[i, i + 1, i + 2] for i in range(10)], dtype=np.int32), dtype=wp.vec3i, device=device)
        self.kernels = {"shade": shade, "outline": outline}
        self.device = device

    def draw(self) -> float:
        self.p = smooth_vertices(self.p)
        n = vertex_normals(self.p, self.tris)
        image = wp.zeros(n.shape[0], dtype=float, device=self.device)
        wp.launch(self.kernels["shade"], dim=n.shape, inputs=[n, wp.vec3(0.0, 0.0, 1.0), image], device=self.device)
        wp.launch(self.kernels["outline"], dim=n.shape, inputs=[image, 0.05], device=self.device)
        return float(image.numpy().mean())
