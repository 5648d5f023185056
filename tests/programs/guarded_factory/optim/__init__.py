"""A tiny optimiser toolkit."""
