"""Where the sweep keeps its compiled kernels: a folder of the project's, not Warp's shared cache."""

import os

import warp as wp

CACHE = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "build", "kernel-cache")


def use_project_kernels():
    # silent: WCT008 — a stable folder of the project's: what one run compiles, the next finds.
    wp.config.kernel_cache_dir = CACHE
    # expect WCT008: cleared on every run, before anything is loaded: every run, and every
    # other program using this folder, compiles all of the sweep's modules from scratch.
    wp.clear_kernel_cache()  # expect: WCT008
