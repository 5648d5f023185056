"""Element assembly for a small finite-element solver."""
