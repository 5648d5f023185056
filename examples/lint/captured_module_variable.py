"""A script variable named like a kernel parameter, set before an integrand joins the module (WCT015)."""

import warp as wp
import warp.fem as fem

wp.set_module_options({"enable_backward": False})
NO_BACKWARD = {"enable_backward": False}


@fem.integrand
def mass_form(s: fem.Sample, u: fem.Field, v: fem.Field):
    return u(s) * v(s)


@fem.integrand
def area_form(s: fem.Sample):
    return 1.0


@wp.kernel
def add_penalty(loss: wp.array(dtype=float), area: wp.array(dtype=float), weight: float):
    loss[0] += weight * area[0]


class Example:
    def __init__(self):
        geo = fem.Grid2D(res=wp.vec2i(4))
        space = fem.make_polynomial_space(geo, degree=1)
        self.domain = fem.Cells(geo)
        self.test = fem.make_test(space, domain=self.domain)
        self.trial = fem.make_trial(space, domain=self.domain)
        self.loss = wp.zeros(1, dtype=float)
        self.area = wp.zeros(1, dtype=float)

    def step(self):
        fem.integrate(mass_form, fields={"u": self.trial, "v": self.test}, output_dtype=float, kernel_options=NO_BACKWARD)
        wp.launch(add_penalty, dim=1, inputs=[self.loss, self.area, weight])
        return float(self.loss.numpy()[0])

    def report(self):
        return float(fem.integrate(area_form, domain=self.domain, kernel_options=NO_BACKWARD))


weight = 0.5
example = Example()
for k in range(3):
    loss = example.step()
    if k == 0:
        print(f"loss {loss:.3f}, area {example.report():.3f}")
