"""A 1-D advection toy."""
