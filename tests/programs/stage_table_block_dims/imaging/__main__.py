"""Filter a small image."""

import warp as wp

from imaging.runner import run_stages


def main():
    wp.init()
    img = wp.full(256, 0.4, dtype=float, device="cpu")
    run_stages(img)
    print("mean", float(img.numpy().mean()))


if __name__ == "__main__":
    main()
