"""A model whose penalty kernel is made on first use."""
