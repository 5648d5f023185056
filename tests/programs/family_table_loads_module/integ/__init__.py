"""An integrator whose kernel families a factory builds into a dtype table."""
