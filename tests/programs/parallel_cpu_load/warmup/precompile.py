"""Load modules up front so the first frame does not stall."""

import warp as wp


def precompile_all():
    # expect WCT011: device=None loads for every device, the CPU included, with 4 worker
    # threads: each worker builds its own precompiled header, slower on few cores (and a
    # load race before Warp 1.17).
    wp.force_load(max_workers=4)  # expect: WCT011
    if wp.is_cuda_available():
        # silent: WCT011 — CUDA devices only: parallel loading is what max_workers is for.
        wp.force_load(device="cuda:0", max_workers=4)
