"""Sums of arrays of any dtype, one cached kernel per (dtype, ndim)."""
