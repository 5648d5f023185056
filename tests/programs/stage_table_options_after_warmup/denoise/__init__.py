"""A denoising pipeline whose stages come from a table of (kernel, strength) rows."""
