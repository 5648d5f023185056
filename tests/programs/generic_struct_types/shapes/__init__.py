"""Volumes and surface areas of analytic shapes."""
