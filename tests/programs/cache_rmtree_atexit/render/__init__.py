"""A toy software rasteriser."""
