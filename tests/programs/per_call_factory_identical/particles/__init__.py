"""Particles with air drag."""
