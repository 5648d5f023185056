"""Filter a float32 array, then a float64 one."""

import warp as wp

from filters.ops import Scale, shift_for


def main():
    wp.init()
    wp.set_device("cpu")
    for dtype in (wp.float32, wp.float64):
        x = wp.ones(8, dtype=dtype)
        scale = Scale(dtype)
        scale(x, 2.0)
        shift = shift_for(dtype)
        shift(x, 1.0)
        print(dtype.__name__, x.numpy()[0])


if __name__ == "__main__":
    main()
