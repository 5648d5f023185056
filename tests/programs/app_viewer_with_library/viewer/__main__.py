"""viewer [--frames N] [--no-kernel-cache]"""

import warp as wp

# silent: WCT001 — set before meshlib or viewer.scene create their modules: it arrives.
wp.config.enable_backward = False  # the viewer never differentiates

from meshlib.ops import precompile  # noqa: E402
from viewer import cli, settings  # noqa: E402, F401
from viewer.scene import Scene  # noqa: E402


def main():
    args = cli.parse_args()
    cli.apply(args)
    wp.init()
    scene = Scene()
    precompile()
    for frame in range(args.frames):
        print("frame", frame, "brightness", round(scene.draw(), 4))


if __name__ == "__main__":
    main()
