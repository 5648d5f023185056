"""Warm up on a few blocks, then switch the filters to fast math for the long run."""

import warp as wp

wp.config.enable_backward = False  # forward-only: set before any kernel module exists

from spectro import tuning  # noqa: E402
from spectro.filters import BandMonitor  # noqa: E402


def main(steps: int = 6, warmup: int = 2):
    wp.init()
    monitor = BandMonitor(4, 12)
    for step in range(steps):
        if step == 0:
            # silent: WCT006 — the first pass sets this before its own launch, before any
            # launch of spectro.filters.
            wp.set_module_options({"max_unroll": 4}, module="spectro.filters")
        if step == warmup:
            # expect WCT006: the warm-up passes launched spectro.filters; from this pass on
            # its options differ, so its next launch hashes and builds the module again.
            tuning.use_fast_math()  # expect: WCT006
        block = wp.array([float((i * (step + 1)) % 7) for i in range(32)], dtype=float, device="cpu")
        print(step, monitor(block))


if __name__ == "__main__":
    main()
