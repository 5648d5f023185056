"""Leave no files behind when the renderer exits."""

import atexit
import shutil

import warp as wp


def remove_caches_at_exit():
    cache_dir = wp.config.kernel_cache_dir
    # expect WCT008: this removes Warp's kernel cache when the program exits, so the next run
    # compiles every module again.
    atexit.register(shutil.rmtree, cache_dir, ignore_errors=True)  # expect: WCT008
    # silent: WCT008 — a scratch folder of the renderer's own, not a Warp cache.
    atexit.register(shutil.rmtree, "render-scratch", ignore_errors=True)
