"""A streaming band-energy monitor."""
