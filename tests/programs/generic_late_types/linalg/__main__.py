"""Add arrays of three dtypes."""

import warp as wp

from linalg.ops import add


def main():
    wp.init()
    wp.set_device("cpu")
    for dtype in (wp.float32, wp.float64, wp.vec3):
        a = wp.ones(8, dtype=dtype)
        b = wp.ones(8, dtype=dtype)
        print(dtype.__name__, add(a, b).numpy()[0])


if __name__ == "__main__":
    main()
