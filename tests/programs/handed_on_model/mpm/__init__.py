"""An MPM step whose model is built by a builder and handed to the integrator on another object."""
