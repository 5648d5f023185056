"""Step three solver layers and check the bodies after each."""

import numpy as np
import warp as wp

from bodies.checks import check_state


def main():
    wp.init()
    wp.set_device("cpu")
    positions = wp.array(np.zeros((16, 3), dtype=np.float32), dtype=wp.vec3)
    for layer in range(3):
        check_state(positions, lambda q: wp.length(q) < 10.0, f"layer {layer}")
    print("checked", positions.shape[0], "bodies")


if __name__ == "__main__":
    main()
