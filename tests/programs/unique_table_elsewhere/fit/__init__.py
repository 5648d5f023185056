"""Penalty terms kept in a table and applied by a trainer."""
