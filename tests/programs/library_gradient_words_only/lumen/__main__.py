"""Smoke test: tone-map a small image."""

import warp as wp

from lumen import tonemap


def main():
    wp.init()
    img = wp.full(16, 2.0, dtype=float, device="cpu")
    print("pixel", float(tonemap(img, 0.5).numpy()[0]))


if __name__ == "__main__":
    main()
