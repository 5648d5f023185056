"""Clear the state, then fill a float32 array and a vec3 array through the launch helper."""

import warp as wp

from sim.kernels import clear, fill
from sim.launch import DEVICE, run


def main():
    wp.init()
    state = wp.ones(8, dtype=wp.float32, device=DEVICE)
    run(clear, 8, [state])
    run(fill, 8, [state, 2.0])
    offsets = wp.zeros(8, dtype=wp.vec3, device=DEVICE)
    run(fill, 8, [offsets, wp.vec3(1.0, 0.0, 0.0)])
    print("state", state.numpy()[0], "offsets", offsets.numpy()[0])


if __name__ == "__main__":
    main()
