"""A block-based audio engine."""
