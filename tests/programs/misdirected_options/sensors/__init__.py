"""Sensor signal processing."""
