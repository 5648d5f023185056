"""Heat diffusion library."""
