"""A density estimate the application differentiates: `wp` from the star import too."""

from .hashing import *  # noqa: F403


# silent: WCT010 — the application launches it inside a wp.Tape and runs tape.backward().
@wp.kernel
def density(x: wp.array(dtype=float), rho: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(rho, 0, wp.exp(-x[i] * x[i]))


def total_density(x):
    rho = wp.zeros(1, dtype=float, device="cpu", requires_grad=True)
    wp.launch(density, dim=x.shape[0], inputs=[x, rho], device="cpu")
    return rho
