"""Run the pipeline over a few frames on the CPU."""

import warp as wp

# A forward-only application: no backward code for any module (set before they exist).
wp.config.enable_backward = False

from imgpipe.pipeline import Pipeline  # noqa: E402
from imgpipe.stages import fill  # noqa: E402


def main():
    wp.init()
    wp.set_device("cpu")
    img = wp.zeros(64, dtype=float)
    pipeline = Pipeline(gain=1.5, offset=0.25)
    for frame in range(3):
        wp.launch(fill, dim=img.shape, inputs=[img, 0.1 * frame])
        pipeline.run(img)
    print("mean", float(img.numpy().mean()))


if __name__ == "__main__":
    main()
