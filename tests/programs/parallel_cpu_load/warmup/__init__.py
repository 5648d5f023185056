"""Precompile everything before the interactive loop."""
