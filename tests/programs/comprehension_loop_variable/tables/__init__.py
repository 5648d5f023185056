"""Filters whose typed kernels a comprehension builds from (name, kernel) rows."""
