"""NumPy data in, Warp arrays of the matching dtype out."""
