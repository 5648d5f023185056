"""Array statistics."""
