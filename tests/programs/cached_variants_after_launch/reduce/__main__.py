"""Sum two float32 arrays (one variant, cached), then a float64 one (a second variant)."""

import warp as wp

from reduce.ops import array_sum


def main():
    wp.init()
    a = wp.full(8, 1.0, dtype=wp.float32, device="cpu")
    b = wp.full(16, 2.0, dtype=wp.float32, device="cpu")
    c = wp.full(8, 3.0, dtype=wp.float64, device="cpu")
    print(array_sum(a), array_sum(b), array_sum(c))


if __name__ == "__main__":
    main()
