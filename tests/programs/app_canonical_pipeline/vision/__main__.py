"""vision [--frames N] [--quality high|fast]"""

import argparse

import warp as wp

# A forward-only application: no module needs backward code (set before they exist).
wp.config.enable_backward = False

from vision.config import Settings  # noqa: E402
from vision.frames import frame  # noqa: E402
from vision.pipeline import Pipeline  # noqa: E402
from vision.quality import apply_quality  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=4)
    parser.add_argument("--quality", choices=("high", "fast"), default="fast")
    args = parser.parse_args()
    settings = Settings(frames=args.frames, quality=args.quality)
    wp.init()
    pipeline = Pipeline(settings)
    total = 0.0
    for index in range(settings.frames):
        img = pipeline.run(frame(index, settings.width, settings.height))
        total += float(img.numpy().mean())
        if index == 0:
            # expect WCT006: the first frame already loaded vision.postfx; apply_quality()
            # (vision/quality.py) changes its options, so the next frame builds it again.
            apply_quality(settings.quality)  # expect: WCT006
    print("mean", total / settings.frames)


if __name__ == "__main__":
    main()
