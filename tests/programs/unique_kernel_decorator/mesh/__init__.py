"""Per-element mesh quantities."""
