"""A 1-D finite element assembler."""
