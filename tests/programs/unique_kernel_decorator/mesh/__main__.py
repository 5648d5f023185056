"""Areas, centroids and normals of a two-triangle quad."""

import numpy as np
import warp as wp

from mesh import elements


def main():
    wp.init()
    wp.set_device("cpu")
    x = wp.array(np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], dtype=np.float32), dtype=wp.vec3)
    tris = wp.array(np.array([[0, 1, 2], [0, 2, 3]], dtype=np.int32), dtype=wp.vec3i)
    areas = wp.zeros(2, dtype=float)
    centroids = wp.zeros(2, dtype=wp.vec3)
    normals = wp.zeros(2, dtype=wp.vec3)
    wp.launch(elements.area, dim=2, inputs=[x, tris, areas])
    wp.launch(elements.centroid, dim=2, inputs=[x, tris, centroids])
    wp.launch(elements.normal, dim=2, inputs=[x, tris, normals])
    print(areas.numpy(), centroids.numpy()[0], normals.numpy()[0])


if __name__ == "__main__":
    main()
