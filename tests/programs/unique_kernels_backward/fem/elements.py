"""Element kernels, one per polynomial order: each gets a module of its own.

module="unique" is deliberate here: each order is a new kernel (its loop is unrolled with
wp.static(order)), and in the file's shared module the second order would join after the
first launch and rebuild it; a module of its own per order builds each once.
"""

import functools

import warp as wp


@functools.cache
def make_mass_kernel(order: int):
    # expect WCT010: a unique module per order, each compiling adjoint code that no tape
    # ever uses (the solver is forward only).
    @wp.kernel(module="unique")  # expect: WCT010
    def mass(rho: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        m = float(0.0)
        for k in range(wp.static(order + 1)):
            m += rho[i] / float(k + 1)
        out[i] = m

    return mass


@functools.cache
def make_stiffness_kernel(order: int):
    # silent: WCT010 — the decorator turns backward code off for this unique module.
    @wp.kernel(module="unique", enable_backward=False)
    def stiffness(k: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        s = float(0.0)
        for j in range(wp.static(order + 1)):
            s += k[i] * float(j + 1)
        out[i] = s

    return stiffness
