"""A two-layer network, forward only."""
