"""A tiny image pipeline: per-pixel stages made by kernel factories."""
