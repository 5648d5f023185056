"""Box filters whose width is chosen per call."""
