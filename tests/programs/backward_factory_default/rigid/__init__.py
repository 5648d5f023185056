"""Rigid particles, forward simulation only."""
