"""A source term assembled in a module that turns backward code off for its own kernels: its
integrand's kernel (``heat.rhs.source_form_<hash>``) builds without adjoint code, but warp.fem's
dispatch kernel for the test field is a module of warp.fem's own, which this option never reaches."""

import warp as wp
import warp.fem as fem

wp.set_module_options({"enable_backward": False})


@fem.integrand
def source_form(s: fem.Sample, v: fem.Field):
    return v(s)


def assemble(space, domain):
    test = fem.make_test(space, domain=domain)
    # The dispatch kernel (warp._src.fem.field.virtual.dyn.dispatch_linear_kernel_fn_*) needs kernel_options.
    rhs = fem.integrate(source_form, fields={"v": test})  # expect: WCT010
    # silent: WCT010 — the nodal assembly builds no dispatch kernel, and the integrand's is built without adjoint code
    nodal = fem.integrate(source_form, fields={"v": test}, assembly="nodal")
    return rhs, nodal
