"""Scalar fields on a grid."""
