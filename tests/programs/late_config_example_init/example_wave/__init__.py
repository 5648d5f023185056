"""The 1-D wave example."""
