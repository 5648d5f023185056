"""Measure a list of shapes."""

import warp as wp

from shapes import kernels


def unit_shapes():
    sphere = kernels.Sphere()
    sphere.radius = 1.0
    box = kernels.Box()
    box.half = wp.vec3(0.5, 0.5, 0.5)
    return sphere, box


def measure(shapes):
    out = wp.zeros(1, dtype=float)
    results = []
    for shape in shapes:
        wp.launch(kernels.total_volume, dim=1, inputs=[shape, out])
        volume = float(out.numpy()[0])
        wp.launch(kernels.total_area, dim=1, inputs=[shape, out])
        results.append((volume, float(out.numpy()[0])))
    return results
