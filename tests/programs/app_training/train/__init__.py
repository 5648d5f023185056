"""Fit a tiny MLP with Warp kernels and a wp.Tape."""
