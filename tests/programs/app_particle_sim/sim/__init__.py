"""Particles and tracers."""
