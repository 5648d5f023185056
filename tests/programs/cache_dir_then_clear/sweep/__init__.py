"""A parameter sweep that keeps its compiled kernels in a folder of its own."""
