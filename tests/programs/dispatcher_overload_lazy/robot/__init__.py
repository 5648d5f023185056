"""A robot's state buffers, written through dtype-specific kernel overloads."""
