"""The integrands: warp.fem builds a kernel for each, per call signature, into a module named
after this one (``heat.forms.diffusion_form_<hash>``)."""

import warp as wp
import warp.fem as fem


@fem.integrand
def initial_temperature(s: fem.Sample, domain: fem.Domain):
    x = domain(s)
    return x[0] * x[1]


@fem.integrand
def diffusion_form(s: fem.Sample, u: fem.Field, v: fem.Field, nu: float):
    return nu * wp.dot(fem.grad(u, s), fem.grad(v, s))


@fem.integrand
def energy_form(s: fem.Sample, u: fem.Field):
    return u(s) * u(s)
