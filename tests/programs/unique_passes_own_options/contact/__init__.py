"""Contact detection on spheres."""
