"""Rigid bodies and a checker of their state."""
