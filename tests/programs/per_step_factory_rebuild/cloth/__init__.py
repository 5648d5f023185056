"""A mass-spring cloth with an adaptive time step."""
