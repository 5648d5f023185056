"""WCT010 for warp.fem: `fem.integrate` / `fem.interpolate` calls whose integrand kernels are
built with backward code that nothing differentiates (issue 37 item 2)."""

from __future__ import annotations

import ast

import pytest

from warp_ct.analyzer.facts import extract
from warp_ct.analyzer.fixes import apply_fixes
from warp_ct.analyzer.model import Severity

from .helpers import lint_files

FORMS = '''\
import warp as wp
import warp.fem as fem


@fem.integrand
def mass_form(s: fem.Sample, u: fem.Field, v: fem.Field):
    return u(s) * v(s)


@fem.integrand
def energy(s: fem.Sample, u: fem.Field):
    return u(s) * u(s)
'''


def _fem(findings):
    return [(f.path, f.line, f.severity) for f in findings if f.rule == "WCT010"]


def _app(body: str, head: str = "import warp as wp\nimport warp.fem as fem\n\nfrom app.forms import mass_form, energy\n") -> dict[str, str]:
    return {
        "app/__init__.py": "",
        "app/forms.py": FORMS,
        "app/__main__.py": head + "\n\ndef main(u, v, field, out):\n" + body + "\n\nif __name__ == '__main__':\n    main(1, 2, 3, 4)\n",
    }


def test_untaped_integrate_and_interpolate_of_an_application_get_the_kernel_options_fix(tmp_path):
    files = _app(
        "    m = fem.integrate(mass_form, fields={'u': u, 'v': v}, output_dtype=float)\n"
        "    fem.interpolate(energy, dest=field)\n"
        "    return m\n"
    )
    findings = lint_files(tmp_path, files)
    assert _fem(findings) == [("app/__main__.py", 8, Severity.WARNING), ("app/__main__.py", 9, Severity.WARNING)]
    first = next(f for f in findings if f.rule == "WCT010")
    assert "`fem.integrate`" in first.message and 'kernel_options={"enable_backward": False}' in first.message
    assert first.range.start.character == 8  # at the callee, not the assignment
    fixed = apply_fixes(files["app/__main__.py"], [f for f in findings if f.rule == "WCT010"], unsafe=True).text
    ast.parse(fixed)
    assert "output_dtype=float, kernel_options={\"enable_backward\": False})" in fixed
    assert "fem.interpolate(energy, dest=field, kernel_options={\"enable_backward\": False})" in fixed


@pytest.mark.parametrize(
    "head, call",
    [
        ("from warp import fem\n", "fem.interpolate(energy, dest=field)"),
        ("import warp as wp\nimport warp.fem\n", "wp.fem.interpolate(energy, dest=field)"),
        ("from warp.fem import interpolate as interp\n", "interp(energy, dest=field)"),
        ("import warp.fem as F\n", "F.interpolate(\n        energy,\n        dest=field,\n    )"),
    ],
)
def test_any_alias_of_warp_fem(tmp_path, head, call):
    files = _app(f"    {call}\n", head=head + "\nfrom app.forms import energy\n")
    findings = lint_files(tmp_path, files)
    assert [line for _path, line, _s in _fem(findings)] == [len(head.splitlines()) + 6]
    fixed = apply_fixes(files["app/__main__.py"], [f for f in findings if f.rule == "WCT010"], unsafe=True).text
    ast.parse(fixed)
    assert 'kernel_options={"enable_backward": False}' in fixed


def test_kernel_options_dict_literal_gets_the_item_merged(tmp_path):
    files = _app(
        "    fem.interpolate(energy, dest=field, kernel_options={'max_unroll': 4})\n"
        "    fem.interpolate(energy, dest=out, kernel_options={})\n"
    )
    findings = [f for f in lint_files(tmp_path, files) if f.rule == "WCT010"]
    assert len(findings) == 2
    fixed = apply_fixes(files["app/__main__.py"], findings, unsafe=True).text
    assert "kernel_options={'max_unroll': 4, \"enable_backward\": False})" in fixed
    assert 'kernel_options={"enable_backward": False})' in fixed


@pytest.mark.parametrize(
    "call",
    [
        "fem.interpolate(energy, dest=field, kernel_options={'enable_backward': True})",
        "fem.interpolate(energy, dest=field, kernel_options={'enable_backward': False})",
        "fem.interpolate(energy, dest=field, kernel_options=OPTIONS)",
        "fem.interpolate(energy, dest=field, **KW)",
        "fem.integrate(energy, fields={'u': field}, output=wp.zeros(1, dtype=float, requires_grad=True))",
    ],
)
def test_calls_that_say_what_they_want_are_silent(tmp_path, call):
    files = _app(f"    {call}\n", head="import warp as wp\nimport warp.fem as fem\n\nfrom app.forms import energy\nOPTIONS = {}\nKW = {}\n")
    assert _fem(lint_files(tmp_path, files)) == []


def test_taped_calls_are_silent_directly_through_calls_and_across_files(tmp_path):
    files = {
        "app/__init__.py": "",
        "app/forms.py": FORMS,
        "app/assemble.py": (
            "import warp.fem as fem\n\nfrom app.forms import energy, mass_form\n\n\n"
            "def total(field, out):\n    fem.integrate(energy, fields={'u': field}, output=out)\n\n\n"
            "def matrix(u, v):\n    return fem.integrate(mass_form, fields={'u': u, 'v': v})\n"
        ),
        "app/__main__.py": (
            "import warp as wp\nimport warp.fem as fem\n\nfrom app import assemble\nfrom app.forms import energy\n\n\n"
            "def main(u, v, field, out):\n"
            "    tape = wp.Tape()\n"
            "    with tape:\n"
            "        fem.integrate(energy, fields={'u': field}, output=out)\n"
            "        assemble.total(field, out)\n"
            "    tape.backward(out)\n"
            "    return assemble.matrix(u, v)\n"
            "\n\nif __name__ == '__main__':\n    main(1, 2, 3, 4)\n"
        ),
    }
    # the matrix is assembled outside the tape: only that call
    assert _fem(lint_files(tmp_path, files)) == [("app/assemble.py", 11, Severity.WARNING)]


def test_a_tape_over_calls_the_model_cannot_follow_keeps_the_modules_it_imports_silent(tmp_path):
    files = {
        "app/__init__.py": "",
        "app/forms.py": FORMS,
        "app/solver.py": "import warp.fem as fem\n\nfrom app.forms import energy\n\n\ndef total(field, out):\n    fem.integrate(energy, fields={'u': field}, output=out)\n",
        "app/__main__.py": (
            "import warp as wp\n\nfrom app import solver\n\n\n"
            "def main(model, out):\n    with wp.Tape() as tape:\n        model.forward(out)\n    tape.backward(out)\n"
            "\n\nif __name__ == '__main__':\n    main(1, 2)\n"
        ),
    }
    assert _fem(lint_files(tmp_path, files)) == []


def test_backward_turned_off_for_the_program_is_silent(tmp_path):
    head = "import warp as wp\n\nwp.config.enable_backward = False\n\nimport warp.fem as fem\n\nfrom app.forms import energy\n"
    assert _fem(lint_files(tmp_path, _app("    fem.interpolate(energy, dest=field)\n", head=head))) == []


def test_a_library_that_asks_for_gradients_without_a_tape_is_silent(tmp_path):
    files = {
        "lib/__init__.py": "",
        "lib/forms.py": FORMS,
        "lib/ops.py": (
            "import warp as wp\nimport warp.fem as fem\n\nfrom lib.forms import energy\n\n\n"
            "def total(field):\n    out = wp.zeros(1, dtype=float, requires_grad=True)\n"
            "    fem.integrate(energy, fields={'u': field}, output=out)\n    return out\n"
        ),
    }
    assert _fem(lint_files(tmp_path, files)) == []


def test_a_library_whose_api_asks_for_gradients_gets_info_pointing_to_the_entry_point(tmp_path):
    files = {
        "lib/__init__.py": "",
        "lib/forms.py": FORMS,
        "lib/ops.py": (
            "import warp.fem as fem\n\nfrom lib.forms import energy\n\n\n"
            "def total(field, out, requires_grad=False):\n    \"\"\"The field energy; gradients are disabled.\"\"\"\n"
            "    fem.integrate(energy, fields={'u': field}, output=out)\n"
        ),
    }
    findings = [f for f in lint_files(tmp_path, files) if f.rule == "WCT010"]
    assert [(f.path, f.line, f.severity) for f in findings] == [("lib/ops.py", 8, Severity.INFO)]
    assert "wp.config.enable_backward = False" in findings[0].message and not findings[0].fixes


def test_facts_record_the_call_its_options_and_where_the_fix_goes():
    text = (
        "import warp as wp\nfrom warp import fem\n\n"
        "def f(x):\n    with wp.Tape():\n        fem.integrate(g, fields={}, kernel_options={'max_unroll': 2})\n"
        "    fem.interpolate(g, dest=x)\n"
    )
    facts = extract("a.py", text, "a", False)
    taped, plain = facts.fem_calls
    assert (taped.kind, taped.taped, taped.options, taped.function) == ("integrate", True, "literal", "f")
    assert (plain.kind, plain.taped, plain.options, plain.insert) == ("interpolate", False, "absent", (7, 29, 7, 29))
    assert extract("b.py", "import warp as wp\n", "b", False).fem_calls == ()


def test_an_integrand_also_integrated_under_a_tape_gets_info_with_the_shared_kernel_caveat(tmp_path):
    files = _app(
        "    with wp.Tape() as tape:\n"
        "        fem.integrate(energy, fields={'u': field}, output=out)\n"
        "    tape.backward(out)\n"
        "    return fem.integrate(energy, fields={'u': u})\n"
    )
    findings = [f for f in lint_files(tmp_path, files) if f.rule == "WCT010"]
    assert [(f.line, f.severity) for f in findings] == [(11, Severity.INFO)]
    assert "would build a second one" in findings[0].message and findings[0].fixes


def test_an_example_script_s_own_calls_are_the_application_s(tmp_path):
    files = {
        "examples/forms.py": FORMS,
        "examples/example_heat.py": (
            "import warp as wp\nimport warp.fem as fem\n\nfrom forms import energy\n\n\n"
            "class Example:\n    def step(self, field, out):\n"
            "        \"\"\"One step; the tape records the loss for its gradient.\"\"\"\n"
            "        with wp.Tape() as tape:\n            fem.integrate(energy, fields={'u': field}, output=out)\n"
            "        tape.backward(out)\n        fem.interpolate(self.show, dest=field)\n"
            "\n\nif __name__ == '__main__':\n    Example().step(1, 2)\n"
        ),
    }
    findings = [f for f in lint_files(tmp_path, files) if f.rule == "WCT010"]
    assert [(f.path, f.line, f.severity) for f in findings] == [("examples/example_heat.py", 13, Severity.WARNING)]
