"""Image segmentation by thresholds."""
