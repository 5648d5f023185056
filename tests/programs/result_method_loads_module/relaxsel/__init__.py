"""A relaxation solver whose first kernel is picked by an object a cached factory builds,
and a filter stage whose kernels a subclass hands to its base with super().__init__()."""
