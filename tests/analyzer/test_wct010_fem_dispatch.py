"""WCT010 for warp.fem, from Warp 1.19's own fem examples (``benchmarks/differential.py
--warp-examples``): warp.fem's dispatch kernel, which the integrand module's options never reach;
``.trace()`` on warp.fem fields inside a tape; integrands keyed by their definition, not their name."""

from __future__ import annotations

import ast

from warp_ct.analyzer.facts import Value, extract
from warp_ct.analyzer.fixes import apply_fixes
from warp_ct.analyzer.model import Severity

from .helpers import lint_files

# example_diffusion.py's shape: the script turns backward code off for its own module (its
# integrands' kernels), and assembles with a test field outside any tape.
DIFFUSION = '''\
import warp as wp
import warp.fem as fem


@fem.integrand
def linear_form(s: fem.Sample, v: fem.Field):
    return v(s)


@fem.integrand
def diffusion_form(s: fem.Sample, u: fem.Field, v: fem.Field, nu: float):
    return nu * wp.dot(fem.grad(u, s), fem.grad(v, s))


@fem.integrand
def projector_form(s: fem.Sample, domain: fem.Domain, u: fem.Field, v: fem.Field):
    return u(s) * v(s)


@fem.integrand
def lumped_form(s: fem.Sample, u: fem.Field, v: fem.Field):
    return u(fem.at_node(v, s)) * v(s)


class Example:
    def __init__(self):
        geo = fem.Grid2D(res=wp.vec2i(4))
        self._space = fem.make_polynomial_space(geo, degree=1)
        self._test = fem.make_test(space=self._space)

    def step(self):
        domain = fem.Cells(geometry=self._space.geometry)
        test = fem.make_test(space=self._space, domain=domain)
        rhs = fem.integrate(linear_form, fields={"v": test})
        trial = fem.make_trial(space=self._space, domain=domain)
        matrix = fem.integrate(diffusion_form, fields={"u": trial, "v": test}, values={"nu": 1.0})
        bd_matrix = fem.integrate(projector_form, fields={"u": trial, "v": test}, assembly="nodal")
        generic = fem.integrate(lumped_form, fields={"u": trial, "v": test})
        again = fem.integrate(linear_form, fields={"v": self._test}, kernel_options={"max_unroll": 2})
        scalar = fem.integrate(linear_form, fields={"v": self._space.make_field()})
        return rhs, matrix, bd_matrix, generic, again, scalar


if __name__ == "__main__":
    wp.set_module_options({"enable_backward": False})
    Example().step()
'''


def _wct010(findings):
    return [f for f in findings if f.rule == "WCT010"]


def test_dispatch_kernel_of_a_test_field_is_reported_where_the_module_turns_backward_off(tmp_path):
    findings = _wct010(lint_files(tmp_path, {"examples/example_diffusion.py": DIFFUSION}))
    # linear and bilinear dispatch (a local test field, ``self._test``); not the nodal
    # assembly, not the integrand applying a node operator (generic assembly), not a scalar
    # integral over a discrete field
    assert [(f.line, f.severity) for f in findings] == [
        (34, Severity.WARNING), (36, Severity.WARNING), (39, Severity.WARNING),
    ]  # fmt: skip
    first, bilinear, _again = findings
    for finding in findings:
        assert "dispatch kernel" in finding.message and "integrand's kernel" not in finding.message
        assert 'kernel_options={"enable_backward": False}' in finding.message
    assert "dispatch_bilinear_kernel_fn_" in bilinear.message and "dispatch_bilinear" not in first.message
    fixed = apply_fixes(DIFFUSION, findings, unsafe=True).text
    ast.parse(fixed)
    assert 'fem.integrate(linear_form, fields={"v": test}, kernel_options={"enable_backward": False})' in fixed
    assert 'values={"nu": 1.0}, kernel_options={"enable_backward": False})' in fixed
    assert 'kernel_options={"max_unroll": 2, "enable_backward": False})' in fixed


def test_without_the_module_option_the_message_names_both_kernels(tmp_path):
    text = DIFFUSION.replace('    wp.set_module_options({"enable_backward": False})\n', "")
    findings = _wct010(lint_files(tmp_path, {"examples/example_diffusion.py": text}))
    by_line = {f.line: f.message for f in findings}
    assert "integrand's kernel, and warp.fem's dispatch kernel" in by_line[34]
    assert "dispatch" not in by_line[37] and "dispatch" not in by_line[38]  # nodal; generic
    assert "dispatch" not in by_line[40]  # no test field


def test_facts_record_the_fields_and_the_assembly():
    facts = extract("a.py", DIFFUSION, "a", False)
    calls = facts.fem_calls
    assert [(k, v.kind) for k, v in calls[1].fields] == [("u", "local"), ("v", "local")]
    assert calls[2].assembly == Value("const", "nodal") and calls[0].assembly is None
    assert calls[4].fields[0][1].kind == "attr"


# example_darcy_ls_optimization.py's shape: a tape over fem calls whose fields are traced.
DARCY = '''\
import warp as wp
import warp.fem as fem


@fem.integrand
def inflow(s: fem.Sample, p: fem.Field):
    return p(s)


@fem.integrand
def identity_form(s: fem.Sample, u: fem.Field, v: fem.Field):
    return u(s) * v(s)


class Example:
    def __init__(self):
        geo = fem.Grid2D(res=wp.vec2i(4))
        self._space = fem.make_polynomial_space(geo, degree=1)
        self._p_field = self._space.make_field()

    def step(self, other):
        level_set = fem.make_discrete_field(space=self._space)
        loss = wp.zeros(1, dtype=float, requires_grad=True)
        tape = wp.Tape()
        with tape:
            fem.integrate(inflow, fields={"p": self._p_field.trace()}, output=loss)
            fem.integrate(inflow, fields={"p": level_set.trace()}, output=loss)
            TRACED
        tape.backward(loss=loss)
        test = fem.make_test(space=self._space)
        trial = fem.make_trial(space=self._space)
        return fem.integrate(identity_form, fields={"u": trial, "v": test}, assembly="nodal")


if __name__ == "__main__":
    Example().step(None)
'''


def test_trace_of_warp_fem_fields_inside_a_tape_keeps_the_tape_transparent(tmp_path):
    text = DARCY.replace("            TRACED\n", "")
    findings = _wct010(lint_files(tmp_path, {"examples/example_darcy.py": text}))
    assert [(f.line, f.severity) for f in findings] == [(31, Severity.WARNING)]
    assert "integrand's kernel" in findings[0].message and "dispatch" not in findings[0].message


def test_a_call_on_an_object_the_model_cannot_tell_still_makes_the_tape_opaque(tmp_path):
    text = DARCY.replace("TRACED", "fem.integrate(inflow, fields={'p': other.trace()}, output=loss)")
    assert _wct010(lint_files(tmp_path, {"examples/example_darcy.py": text})) == []


# Two unrelated scripts with an integrand of the same name: one integrates it on a tape.
TAPED = '''\
import warp as wp
import warp.fem as fem


@fem.integrand
def elasticity_form(s: fem.Sample, u: fem.Field):
    return u(s) * u(s)


def main(field):
    out = wp.zeros(1, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        fem.integrate(elasticity_form, fields={"u": field}, output=out)
    tape.backward(out)


if __name__ == "__main__":
    main(None)
'''

UNTAPED = '''\
import warp as wp
import warp.fem as fem


@fem.integrand
def elasticity_form(s: fem.Sample, u: fem.Field):
    return 2.0 * u(s)


def main(field):
    return fem.integrate(elasticity_form, fields={"u": field})


if __name__ == "__main__":
    main(None)
'''


def test_findings_do_not_depend_on_which_files_a_run_holds(tmp_path):
    def summary(findings):
        return [(f.path, f.line, f.severity, f.message) for f in _wct010(findings) if f.path.endswith("example_b.py")]

    alone = summary(lint_files(tmp_path / "alone", {"examples/example_b.py": UNTAPED}))
    together = summary(lint_files(tmp_path / "together", {"examples/example_a.py": TAPED, "examples/example_b.py": UNTAPED}))
    assert together == alone
    assert [(line, severity) for _p, line, severity, _m in alone] == [(11, Severity.WARNING)]


def test_the_same_integrand_taped_in_the_same_program_still_gets_the_shared_kernel_caveat(tmp_path):
    text = TAPED.replace("    tape.backward(out)\n", "    tape.backward(out)\n    return fem.integrate(elasticity_form, fields={'u': field})\n")
    findings = _wct010(lint_files(tmp_path, {"examples/example_a.py": text}))
    assert [(f.line, f.severity) for f in findings] == [(15, Severity.INFO)]
    assert "would build a second one" in findings[0].message


def test_an_untaped_call_with_the_same_fields_as_a_taped_one_shares_its_kernel_and_is_silent(tmp_path):
    # example_darcy_ls_optimization.py:238: the initial volume, integrated over the same kind of
    # discrete field as the taped loss: one kernel, whose adjoint the tape runs
    shared = TAPED.replace("def main(field):\n", "def main(space):\n    field = fem.make_discrete_field(space=space)\n").replace(
        "    tape.backward(out)\n", "    tape.backward(out)\n    return fem.integrate(elasticity_form, fields={'u': field})\n"
    )
    assert _wct010(lint_files(tmp_path / "same", {"examples/example_a.py": shared})) == []
    other = shared.replace("fields={'u': field})", "fields={'u': fem.make_trial(space)})")
    findings = _wct010(lint_files(tmp_path / "other", {"examples/example_a.py": other}))
    assert [(f.line, f.severity) for f in findings] == [(16, Severity.INFO)]


def test_the_integrand_s_kernel_takes_the_options_of_the_module_that_defines_it(tmp_path):
    forms = (
        "import warp as wp\nimport warp.fem as fem\n\nwp.set_module_options({'enable_backward': False})\n\n\n"
        "@fem.integrand\ndef energy(s: fem.Sample, u: fem.Field):\n    return u(s) * u(s)\n\n\n"
        "@fem.integrand\ndef source(s: fem.Sample, v: fem.Field):\n    return v(s)\n"
    )
    script = (
        "import warp as wp\nimport warp.fem as fem\n\nfrom forms import energy, source\n\n\n"
        "def main(field, space):\n"
        "    total = fem.integrate(energy, fields={'u': field})\n"
        "    rhs = fem.integrate(source, fields={'v': fem.make_test(space)})\n"
        "    return total, rhs\n"
        "\n\nif __name__ == '__main__':\n    main(None, None)\n"
    )
    findings = _wct010(lint_files(tmp_path, {"examples/forms.py": forms, "examples/example_heat.py": script}))
    # forms.py builds the integrands' kernels without backward code: only the dispatch kernel is left
    assert [(f.path, f.line) for f in findings] == [("examples/example_heat.py", 9)]
    assert "integrand's kernel" not in findings[0].message and "dispatch kernel" in findings[0].message


HELPERS = '''\
import warp as wp
import warp.fem as fem

from helpers import unknown_helper


@wp.func
def velocity(pos: wp.vec2, ang_vel: float):
    return wp.vec2(-pos[1], pos[0]) * ang_vel


@fem.integrand
def transported_form(s: fem.Sample, domain: fem.Domain, phi: fem.Field, psi: fem.Field, dt: float):
    pos = domain(s)
    phi_cell = fem.cells(phi)
    return phi_cell(fem.lookup(domain, pos - velocity(pos, 1.0) * dt, s)) * psi(s)


@fem.integrand
def opaque_form(s: fem.Sample, psi: fem.Field):
    return unknown_helper(psi, s)


def main(space, phi):
    test = fem.make_test(space)
    rhs = fem.integrate(transported_form, fields={"phi": phi, "psi": test}, values={"dt": 0.1})
    other = fem.integrate(opaque_form, fields={"psi": test})
    return rhs, other


if __name__ == "__main__":
    wp.set_module_options({"enable_backward": False})
    main(None, None)
'''


def test_integrand_helpers_that_cannot_apply_node_operators_keep_the_dispatch_claim(tmp_path):
    # example_convection_diffusion.py / example_kelvin_helmholtz.py: a @wp.func helper, a cell
    # field made by fem.cells evaluated; an integrand calling what the model cannot follow (which
    # may apply fem.at_node, making the assembly "generic") stays silent
    findings = _wct010(lint_files(tmp_path, {"examples/example_transport.py": HELPERS}))
    assert [(f.line, f.severity) for f in findings] == [(26, Severity.WARNING)]
    assert "dispatch kernel" in findings[0].message
