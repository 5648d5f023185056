"""Mesh smoothing tool."""
