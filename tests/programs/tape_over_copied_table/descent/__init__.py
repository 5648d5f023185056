"""Fits weights under penalty terms recorded on a tape; reports metrics outside it."""
