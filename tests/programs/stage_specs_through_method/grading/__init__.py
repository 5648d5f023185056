"""Colour grading of images in named stages."""
