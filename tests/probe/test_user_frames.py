"""Issue 37: measured findings at the user's line, honest figures, comparable struct launches,
factory defaults.

Real Warp programs on device "cpu" (nothing mocked), written into tmp_path and measured with
the probe. An installed package is a folder named ``site-packages`` on ``PYTHONPATH`` (what
makes a file not the user's is where it lives).
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest

from warp_ct.probe.analysis import launch_topology
from warp_ct.probe.compare import compare_reports
from warp_ct.probe.measure import run_measure
from warp_ct.probe.records import LaunchSignature, entry_package, is_user_file, package_of_file
from warp_ct.probe.text import render_text

ROOT = Path(__file__).resolve().parents[2]


def _measure(tmp_path: Path, name: str, files: dict[str, str], env: dict[str, str] | None = None):
    for path, source in files.items():
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(source))
    report = run_measure([sys.executable, name], cwd=str(tmp_path), samples=1, env=env)
    assert report.ok_samples, report.samples[0].cold.stderr_tail
    return report


def _placed(report):
    return [(f["code"], f["path"], f["location"]["line"]) for f in report.findings]


def _with_packages(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(tmp_path / "site-packages"), env.get("PYTHONPATH")) if p)
    return env


# -- unit: which files are the user's ----------------------------------------------------


def test_files_of_warp_packages_and_generated_code_are_not_the_user_s():
    site = "/venv/lib/python3.11/site-packages"
    assert package_of_file(f"{site}/warp/_src/fem/integrate.py") == "warp.fem"
    assert package_of_file(f"{site}/warp/_src/context.py") == "warp"
    assert package_of_file(f"{site}/warp/examples/fem/utils.py") == "warp.examples"
    assert package_of_file(f"{site}/newton/solvers/xpbd.py") == "newton"
    assert package_of_file("<string>") == "warp"  # wp.map's generated kernels
    assert is_user_file("/home/me/app/sim.py") and not is_user_file(f"{site}/warp/_src/optim/linear.py")
    # what the user's line called: Warp's core API is the user's own act, a subpackage is not
    assert entry_package({"module": "warp._src.fem.integrate", "function": "integrate"}) == "warp.fem"
    assert entry_package({"module": "warp._src.context", "function": "launch"}) is None
    assert entry_package({"module": "toolkit.solvers", "function": "solve"}) == "toolkit"


def test_launch_topology_of_older_reports_compares_struct_types_without_addresses():
    def signature(address: str) -> LaunchSignature:
        dtypes = (f"<warp._src.codegen.Struct object at {address}>", "array(ndim=1, dtype=float32)")
        return LaunchSignature("integrand_k", "m", (64,), "cpu", dtypes, 1, False, 1)

    assert launch_topology([signature("0x7f40aa")]) == launch_topology([signature("0x7fcc42587710")])


# -- 1. user frames -----------------------------------------------------------------------

PACKAGE = {
    # Like Warp's CG solver: a generic kernel of the package's own, instantiated per dtype at
    # the first call with it, after the package's module was loaded: a rebuild no user line
    # can change.
    "site-packages/toolkit/__init__.py": """\
        from typing import Any

        import warp as wp


        @wp.kernel
        def scale(a: wp.array(dtype=Any), s: Any):
            a[wp.tid()] = a[wp.tid()] * s


        def solve(a, s):
            wp.launch(scale, dim=a.shape, inputs=[a, a.dtype(s)], device=a.device)


        def make(func):
            # Like warp.fem building the user's integrand: a kernel made inside the package
            # from the user's function, into the user's module.
            return wp.kernel(func)
        """,
    "app.py": """\
        import warp as wp

        import toolkit

        wp.config.enable_backward = False


        def twice(a: wp.array(dtype=float)):
            a[wp.tid()] = 2.0 * a[wp.tid()]


        @wp.kernel
        def fill(a: wp.array(dtype=float)):
            a[wp.tid()] = 1.0


        a = wp.zeros(8, dtype=float, device="cpu")
        wp.launch(fill, dim=8, inputs=[a], device="cpu")
        toolkit.solve(a, 2.0)
        toolkit.solve(wp.zeros(8, dtype=wp.float64, device="cpu"), 2.0)
        k = toolkit.make(twice)
        wp.launch(k, dim=8, inputs=[a], device="cpu")
        b = a + a
        """,
}


def test_costs_inside_packages_sit_at_the_user_s_call_or_in_the_notes(tmp_path):
    report = _measure(tmp_path, "app.py", PACKAGE, env=_with_packages(tmp_path))
    # the user's module rebuilt because the package defined a kernel into it: at the user's
    # call of the package (line 21), the package named; never a finding in site-packages or
    # <string> (the generic instance of toolkit's own kernel, wp.map's `map_add`)
    assert _placed(report) == [("WCT007", "app.py", 21)]
    (finding,) = report.findings
    assert "inside `toolkit` (`make`)" in finding["message"] and "`app` (run as `__main__`) built 2×" in finding["message"]
    notes = report.analysis.notes
    toolkit_note = next(n for n in notes if n.startswith("`toolkit`"))
    assert "generic kernel `scale`" in toolkit_note and "app.py line 20" in toolkit_note
    assert "1 rebuild" in toolkit_note and "note, not a finding" in toolkit_note
    # diagnoses speak of the user's modules only: toolkit's churn and Warp's one-kernel
    # map module are not problems a rule of the user's code explains
    problems = {d.code: d for d in report.analysis.diagnoses if d.problem}
    assert "one-kernel-modules" not in problems
    assert [d.modules for d in report.analysis.diagnoses if d.code == "hash-churn"] == [["__main__"]]
    text = render_text(report)
    assert "site-packages" not in text.split("Measured findings")[1].split("Notes")[0]
    schema = json.loads((ROOT / "warp_ct/probe/report.schema.json").read_text())
    jsonschema.validate(json.loads(json.dumps(report.to_json_dict())), schema)


# -- 3. honest figures ---------------------------------------------------------------------

ONE_REBUILD = """\
import warp as wp

wp.config.enable_backward = False


@wp.kernel
def first(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


def add_two():
    @wp.kernel
    def second(a: wp.array(dtype=float)):
        a[wp.tid()] = 2.0

    @wp.kernel
    def third(a: wp.array(dtype=float)):
        a[wp.tid()] = 3.0

    return second, third


a = wp.zeros(4, dtype=float, device="cpu")
wp.launch(first, dim=4, inputs=[a], device="cpu")
wp.config.optimization_level = 1
second, third = add_two()
wp.launch(second, dim=4, inputs=[a], device="cpu")
wp.launch(third, dim=4, inputs=[a], device="cpu")
"""


def test_a_build_is_counted_once_across_causes_and_findings(tmp_path):
    report = _measure(tmp_path, "one_rebuild.py", {"one_rebuild.py": ONE_REBUILD})
    # three causes (an option hashed late, two kernels from one factory call) and one rebuild
    assert _placed(report) == [("WCT006", "one_rebuild.py", 25), ("WCT007", "one_rebuild.py", 26)]
    (module,) = report.analysis.modules
    assert len(module.hashes) == 2
    rebuild = [load for load in report.samples[0].cold.loads if load.hash == module.hashes[1]]
    assert len(rebuild) == 1
    config, kernels = report.findings
    assert "rebuilds" not in config["message"] and "rebuilds" not in kernels["message"]
    assert "the same rebuild as at line 25 (counted there)" in kernels["message"]
    counted = [f["evidence"][0]["milliseconds"] for f in report.findings]
    assert counted[1] == 0 and counted[0] == pytest.approx(rebuild[0].ms, abs=0.01)


NO_CACHE = """\
import warp as wp

wp.config.cache_kernels = False


@wp.kernel(module="unique")
def double(a: wp.array(dtype=float)):
    a[wp.tid()] = 2.0 * a[wp.tid()]


@wp.kernel(module="unique")
def negate(a: wp.array(dtype=float)):
    a[wp.tid()] = -a[wp.tid()]


a = wp.ones(4, dtype=float, device="cpu")
wp.launch(double, dim=4, inputs=[a], device="cpu")
wp.launch(negate, dim=4, inputs=[a], device="cpu")
b = a + a  # wp.map's `map_add`: Warp's generated kernel, in <string>
"""


def test_diagnoses_agree_and_name_each_module_once(tmp_path):
    report = _measure(tmp_path, "no_cache.py", {"no_cache.py": NO_CACHE})
    codes = [d.code for d in report.analysis.diagnoses]
    # the warm run compiled everything again: cold - warm measures nothing, so no "compile is
    # a small part, look elsewhere" beside "the cache was not reused"
    assert "cache-not-reused" in codes and "compile-not-dominant" not in codes
    (one_kernel,) = [d for d in report.analysis.diagnoses if d.code == "one-kernel-modules"]
    assert len(one_kernel.evidence) == 2
    for line, module in zip(sorted(one_kernel.evidence), sorted(one_kernel.modules)):
        assert line.startswith(f"`{module}`: ") and line.count(module.rsplit("_", 1)[0]) == 1
    backward = [f for f in report.findings if f["code"] == "WCT010"]
    assert backward and all("up to" in f["message"] and f["evidence"][0]["upper_bound"] for f in backward)
    # Warp's `map_add` compiled backward code for nothing too, but its options are Warp's: a note
    assert all(f["path"] == "no_cache.py" for f in report.findings)
    assert any("`map_add` (warp)" in n and "backward" in n for n in report.analysis.notes)


# -- 4. compare: struct arguments by type ----------------------------------------------------

STRUCT_ARGUMENTS = """\
import warp as wp
from warp._src.fem import cache  # what warp.fem builds its integrands' argument structs with

wp.config.enable_backward = False
# warp.fem's argument structs have no __name__: their repr carried the object's address
Args = cache.get_argument_struct({"scale": float})


@wp.kernel
def scaled(args: Args, a: wp.array(dtype=float)):
    a[wp.tid()] = args.scale


values = Args()
values.scale = 2.0
a = wp.zeros(4, dtype=float, device="cpu")
wp.launch(scaled, dim=4, inputs=[values, a], device="cpu")
"""


def test_two_runs_of_a_program_with_struct_arguments_compare(tmp_path):
    first = _measure(tmp_path, "structs.py", {"structs.py": STRUCT_ARGUMENTS})
    second = _measure(tmp_path, "structs.py", {})
    (entry,) = first.analysis.launch_topology
    assert " at 0x" not in json.dumps(entry) and entry[2][0] != ""
    result = compare_reports(first, second)
    assert result.verdict != "invalid" and not result.topology_differences


# -- 5. factory defaults -----------------------------------------------------------------------

FACTORIES = {
    "stages.py": """\
        import warp as wp


        def make_gain(g: float, module="unique"):
            @wp.kernel(module=module)
            def gain(a: wp.array(dtype=float)):
                a[wp.tid()] = a[wp.tid()] * g

            return gain


        def make_bias(
            b: float,
            module: str = "unique",
        ):
            @wp.kernel(module=module)
            def bias(a: wp.array(dtype=float)):
                a[wp.tid()] = a[wp.tid()] + b

            return bias


        def make_step(c: float, module="unique"):
            @wp.kernel(module=module)
            def step(a: wp.array(dtype=float)):
                a[wp.tid()] = a[wp.tid()] - c

            return step
        """,
    "pipeline.py": """\
        import warp as wp

        from stages import make_bias, make_gain, make_step

        wp.config.enable_backward = False

        a = wp.ones(4, dtype=float, device="cpu")
        stages = [make_gain(2.0), make_bias(1.0, module="unique")]
        for kernel in stages:
            wp.launch(kernel, dim=4, inputs=[a], device="cpu")
        for c in (0.5, 0.25):
            # one kernel per request, between launches: what module="unique" is for
            wp.launch(make_step(c), dim=4, inputs=[a], device="cpu")
        """,
}


def test_a_factory_default_that_makes_unique_modules_is_wct002_at_the_default_or_the_call(tmp_path):
    report = _measure(tmp_path, "pipeline.py", FACTORIES)
    assert _placed(report) == [("WCT002", "pipeline.py", 8), ("WCT002", "stages.py", 4)]
    call, default = report.findings
    assert "this call passes module=\"unique\" to `make_bias()`" in call["message"]
    assert '`module` defaults to "unique" in `make_gain()`' in default["message"]
    assert "1 one-kernel module (`gain`)" in default["message"] and "of 2 such modules" in default["message"]
    assert default["kernel"].endswith("gain")

    # confirm joins it with the static WCT002 at the same default
    from warp_ct.analyzer import lint_paths
    from warp_ct.confirm import join

    static = [f for result in lint_paths([str(tmp_path / "stages.py"), str(tmp_path / "pipeline.py")])
              for f in result.findings if f.rule == "WCT002"]  # fmt: skip
    joined = {(Path(j.finding.path).name, j.finding.line): j for j in join(static, report).joined}
    assert joined[("stages.py", 4)].status == "confirmed"
    assert [t.line for t in joined[("stages.py", 4)].twins] == [4]
