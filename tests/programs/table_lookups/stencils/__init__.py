"""Stencils looked up by name in kernel tables."""
