"""Warm up, tune, then denoise a few frames."""

import warp as wp

wp.config.enable_backward = False  # forward-only: set before any kernel module exists

from denoise.pipeline import Pipeline  # noqa: E402


def main():
    wp.init()
    pipeline = Pipeline(n=64, unroll=8)
    pipeline.warmup()
    # expect WCT006: warmup() loaded denoise.filters through the stage table the pipeline
    # copied, so tune()'s new unroll limit gives it a new hash: the first frame builds it again.
    pipeline.tune()  # expect: WCT006
    for _ in range(3):
        print("sum", pipeline.frame())


if __name__ == "__main__":
    main()
