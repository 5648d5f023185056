"""Process a few blocks; the unroll limit is lowered after the first one."""

import warp as wp

wp.config.enable_backward = False  # forward-only: set before any kernel module exists

from audio.engine import Engine  # noqa: E402


def main():
    wp.init()
    engine = Engine(256)
    buf = wp.full(256, 1.0, dtype=float, device="cpu")
    engine.process(buf)
    # expect WCT006: audio.filters was loaded by the first process() call; changing its
    # options now gives it a second hash and a second build.
    wp.set_module_options({"max_unroll": 2}, module="audio.filters")  # expect: WCT006
    for _ in range(3):
        engine.process(buf)
    print("out", float(engine.out.numpy().sum()))


if __name__ == "__main__":
    main()
