"""One forward heat step on a 2x2 grid, then the gradient of the field's energy."""

import warp as wp
import warp.fem as fem

from heat import rhs
from heat.forms import diffusion_form, energy_form, initial_temperature


def main():
    wp.init()
    wp.set_device("cpu")
    geo = fem.Grid2D(res=wp.vec2i(2))
    space = fem.make_polynomial_space(geo, degree=1)
    temperature = space.make_field()
    # No tape records this interpolation: warp.fem builds its kernel with adjoint code for nothing.
    fem.interpolate(initial_temperature, dest=temperature)  # expect: WCT010
    domain = fem.Cells(geo)
    test = fem.make_test(space, domain=domain)
    trial = fem.make_trial(space, domain=domain)
    # The matrix is assembled outside any tape: its integrand and dispatch kernels need no adjoint.
    matrix = fem.integrate(  # expect: WCT010
        diffusion_form,
        fields={"u": trial, "v": test},
        values={"nu": 0.5},
        output_dtype=float,
        kernel_options={"max_unroll": 4},
    )
    print(matrix.nnz)
    source, nodal = rhs.assemble(space, domain)
    print(source.shape, nodal.shape)

    temperature.dof_values.requires_grad = True
    energy = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        # silent: WCT010 — recorded on the tape: tape.backward runs this kernel's adjoint
        fem.integrate(energy_form, fields={"u": temperature}, domain=domain, output=energy)
    tape.backward(energy)
    print(energy.numpy()[0], temperature.dof_values.grad.numpy().sum())


if __name__ == "__main__":
    main()
