"""Filters as operator objects: kernels built when the object is made, launched when it is called."""
