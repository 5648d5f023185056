"""Neighbour search and a density estimate, written with star imports (sphWarpCore's layout)."""
