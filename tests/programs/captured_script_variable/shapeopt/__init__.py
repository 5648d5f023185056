"""A small shape optimisation driven from a script."""
