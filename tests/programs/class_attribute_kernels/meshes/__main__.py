"""Reset and scale a float32 mesh, then a float64 one."""

import warp as wp

from meshes.geometry import Mesh


def main():
    wp.init()
    wp.set_device("cpu")
    for dtype in (wp.float32, wp.float64):
        mesh = Mesh(wp.zeros(8, dtype=dtype))
        mesh.reset(1.0)
        mesh.scale(2.0)
        print(dtype.__name__, mesh.positions.numpy()[0])


if __name__ == "__main__":
    main()
