"""Element-wise array algebra for any dtype."""
