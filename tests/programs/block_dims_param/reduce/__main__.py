"""Reduce a small array."""

import warp as wp

from reduce.reducer import Reducer


def main():
    wp.init()
    x = wp.ones(1024, dtype=float, device="cpu")
    print("sum", float(Reducer().run(x).numpy()[0]))


if __name__ == "__main__":
    main()
