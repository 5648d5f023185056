"""Count overlaps of a few spheres."""

import numpy as np
import warp as wp

from contact.narrow import clear, penetration, sphere_overlap


def main():
    wp.init()
    wp.set_device("cpu")
    p = wp.array(np.array([[0, 0, 0], [0.5, 0, 0], [3, 0, 0]], dtype=np.float32), dtype=wp.vec3)
    hits = wp.zeros(1, dtype=int)
    depth = wp.zeros(3, dtype=float)
    wp.launch(clear, dim=1, inputs=[hits])
    wp.launch(sphere_overlap, dim=(3, 3), inputs=[p, 0.5, hits])
    wp.launch(penetration, dim=3, inputs=[p, 1.0, depth])
    print("hits", int(hits.numpy()[0]), "depth", depth.numpy())


if __name__ == "__main__":
    main()
