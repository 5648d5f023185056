"""Command line of the example, in the style of warp's own examples."""

import argparse

import warp as wp

from example_wave.wave import Example


def init(args):
    """Apply the example's Warp settings before it runs."""
    # expect WCT001: example_wave.wave defined its kernel at import, before init() runs, so
    # its module already copied max_unroll: the value from --max-unroll never reaches it.
    wp.config.max_unroll = args.max_unroll  # expect: WCT001
    # expect WCT001 as info: --warp-config sets options by name after the kernels exist; which
    # one is not known here, but those that modules copy at creation would never arrive.
    for key, value in args.warp_config:
        setattr(wp.config, key, type(getattr(wp.config, key))(int(value)))  # expect: WCT001:info
    # silent: WCT001 — mode is read when the module is hashed, so a late value still applies.
    wp.config.mode = "release"
    wp.init()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-unroll", type=int, default=16)
    parser.add_argument("--warp-config", nargs=2, action="append", default=[], metavar=("KEY", "VALUE"))
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args()
    init(args)
    example = Example()
    for _ in range(args.steps):
        example.step()
    print("u", float(example.u[1].numpy().sum()))


if __name__ == "__main__":
    main()
