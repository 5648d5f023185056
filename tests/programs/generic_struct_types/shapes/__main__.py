"""Print the volume and area of a unit sphere and a unit box."""

import warp as wp

from shapes.measure import measure, unit_shapes


def main():
    wp.init()
    wp.set_device("cpu")
    for volume, area in measure(unit_shapes()):
        print(f"volume {volume:.3f} area {area:.3f}")


if __name__ == "__main__":
    main()
