"""Reset the robot, then write joint positions (float32) and link offsets (vec3)."""

import warp as wp

from robot import kernels


def main():
    wp.init()
    rows = wp.array([0, 1], dtype=wp.int32, device="cpu")
    joints = wp.zeros((4, 3), dtype=wp.float32, device="cpu")
    wp.launch(kernels.reset_state, dim=joints.shape, inputs=[joints], device="cpu")
    kernels.write_rows(wp.ones((2, 3), dtype=wp.float32, device="cpu"), rows, joints, wp.float32)
    links = wp.zeros((4, 2), dtype=wp.vec3, device="cpu")
    kernels.write_rows(wp.ones((2, 2), dtype=wp.vec3, device="cpu"), rows, links, wp.vec3)
    print("joints", joints.numpy()[0], "links", links.numpy()[0, 0])


if __name__ == "__main__":
    main()
