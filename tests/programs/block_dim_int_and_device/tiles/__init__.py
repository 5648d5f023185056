"""Tiled matrix helpers."""
