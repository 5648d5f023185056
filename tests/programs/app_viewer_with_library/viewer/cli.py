"""Command line of the viewer."""

import argparse

import warp as wp


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog="viewer")
    parser.add_argument("--frames", type=int, default=3)
    parser.add_argument("--no-kernel-cache", action="store_true", help="never read or write compiled kernels")
    return parser.parse_args(argv)


def apply(args):
    if args.no_kernel_cache:
        # expect WCT008 as info: only when the user asks for it on the command line.
        wp.config.cache_kernels = False  # expect: WCT008:info
