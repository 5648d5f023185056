"""A micro-benchmark harness."""
