"""A tiny simulation whose launches all go through one helper."""
