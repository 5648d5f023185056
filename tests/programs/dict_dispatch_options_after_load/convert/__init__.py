"""Convert sensor counts to physical units."""
