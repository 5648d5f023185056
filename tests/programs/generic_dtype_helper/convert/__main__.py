"""Double single- and double-precision data."""

import numpy as np
import warp as wp

from convert.ops import double


def main():
    wp.init()
    print(double(np.ones(8, np.float32))[0])
    print(double(np.ones(8, np.float64))[0])


if __name__ == "__main__":
    main()
