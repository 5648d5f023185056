"""Checks run in CI."""
