"""A small real-time image pipeline."""
