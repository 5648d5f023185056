"""A mesh viewer built on meshlib."""
