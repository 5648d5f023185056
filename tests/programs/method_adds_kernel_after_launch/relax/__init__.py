"""A relaxation solver whose terms are added after construction."""
