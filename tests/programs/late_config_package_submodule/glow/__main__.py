"""Brighten an image forward only."""

import warp as wp

from glow.settings import configure_forward_only


def main():
    configure_forward_only()
    wp.init()
    from glow import brighten

    img = wp.full(16, 0.5, dtype=float, device="cpu")
    wp.launch(brighten, dim=16, inputs=[img, 1.5], device="cpu")
    print("pixel", float(img.numpy()[0]))


if __name__ == "__main__":
    main()
