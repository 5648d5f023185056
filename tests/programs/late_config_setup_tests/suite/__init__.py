"""A small Warp test suite run as a program."""
