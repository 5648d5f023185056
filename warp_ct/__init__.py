"""warp-ct: find, show and measure what makes NVIDIA Warp programs compile slowly."""

__version__ = "0.1.0"
