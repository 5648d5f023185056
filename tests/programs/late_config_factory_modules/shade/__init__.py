"""Pixel shaders made on request: each a kernel in a Warp module of its own."""
