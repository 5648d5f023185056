"""Image filters. The package re-exports its kernels: importing any part of it creates them."""

from glow.kernels import *  # noqa: F401,F403
