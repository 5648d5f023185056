"""A solver package that supports Warp 1.14-1.16."""
