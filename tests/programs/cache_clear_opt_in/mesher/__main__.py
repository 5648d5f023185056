"""mesher [--iterations N] [--clear-kernel-cache]"""

import argparse
import os

import numpy as np
import warp as wp

wp.config.enable_backward = False  # forward-only: set before any kernel module exists

from mesher.kernels import copy, smooth  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--clear-kernel-cache", action="store_true", help="delete Warp's compiled kernels first")
    args = parser.parse_args()
    # silent: WCT008 — a stable, user-chosen cache location keeps the cache across runs.
    if os.environ.get("MESHER_KERNEL_CACHE"):
        wp.config.kernel_cache_dir = os.environ["MESHER_KERNEL_CACHE"]
    wp.init()
    if args.clear_kernel_cache:
        # expect WCT008 as info: the user asks for it on the command line; a deliberate
        # maintenance path, not something every run pays.
        wp.clear_kernel_cache()  # expect: WCT008:info
    angles = np.linspace(0, 2 * np.pi, 32, endpoint=False)
    ring = np.stack([np.cos(angles), np.sin(angles), np.zeros_like(angles)], axis=1).astype(np.float32)
    p = wp.array(ring, dtype=wp.vec3, device="cpu")
    tmp = wp.zeros_like(p)
    for _ in range(args.iterations):
        wp.launch(smooth, dim=p.shape, inputs=[p, tmp, 0.5], device="cpu")
        wp.launch(copy, dim=p.shape, inputs=[tmp, p], device="cpu")
    print("r", float(np.linalg.norm(p.numpy()[0])))


if __name__ == "__main__":
    main()
