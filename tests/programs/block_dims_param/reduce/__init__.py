"""Tile reductions."""
