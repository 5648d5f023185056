"""Print the mean and the largest magnitude of a ramp."""

import numpy as np
import warp as wp

from stats.reductions import abs_max, mean


def main():
    wp.init()
    x = wp.array(np.linspace(-3.0, 1.0, 100, dtype=np.float32), device="cpu")
    print("mean", mean(x), "absmax", abs_max(x))


if __name__ == "__main__":
    main()
