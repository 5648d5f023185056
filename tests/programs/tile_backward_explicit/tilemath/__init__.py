"""Tile-based row sums."""
