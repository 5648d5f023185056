import warp as wp

wp.config.enable_backward = False  # forward-only: set before the kernels are imported

from darkroom.develop import develop  # noqa: E402


def main() -> None:
    wp.init()
    pixels = develop(1024)
    print("developed", float(pixels.numpy().mean()))


if __name__ == "__main__":
    main()
