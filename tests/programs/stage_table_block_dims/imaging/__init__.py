"""Image filters run as a table of stages."""
