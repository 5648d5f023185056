"""Smooth a signal frame by frame, widening the filter as it goes."""

import warp as wp

wp.config.enable_backward = False  # forward-only: set before any kernel module exists

from smooth.filters import Smoother  # noqa: E402


def main():
    wp.init()
    smoother = Smoother(count=64)
    radius = 1
    for frame in range(3):
        out = smoother.apply(radius)
        print("frame", frame, "radius", radius, float(out.numpy()[10]))
        radius += 1


if __name__ == "__main__":
    main()
