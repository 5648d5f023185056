"""``warp-ct model``: what the program model follows, per project (issue 36, item 1).

Small real projects, each a shape of how code reaches its kernels: a kernel launched by
name, one picked from a dict, one a launching helper receives from the project's callers
or from callers outside it (an API parameter), and one a registry returns, which the model
does not follow and the report says why. Text and JSON; the figures of a project do not
depend on what else the run names.
"""

from __future__ import annotations

import json

from warp_ct.analyzer.coverage import measure_paths
from warp_ct.config import Config

KERNELS = """\
import warp as wp


@wp.kernel
def scale(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] * s


@wp.kernel
def shift(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] + s


BY_NAME = {"scale": scale, "shift": shift}
"""

LAUNCHES = """\
import warp as wp

from .kernels import BY_NAME, scale


def by_name(a):
    wp.launch(scale, dim=a.shape, inputs=[a, 2.0])


def from_dict(a, name):
    wp.launch(BY_NAME[name], dim=a.shape, inputs=[a, 1.0])


def launch_given(kernel, a, block_dim):
    wp.launch(kernel, dim=a.shape, inputs=[a, 1.0], block_dim=block_dim)
"""

# ``launch_given`` above is an API parameter until a caller in the project passes a kernel.
CALLER = """\
from .kernels import shift
from .launches import launch_given


def shift_all(a):
    launch_given(shift, a, 64)
"""

REGISTRY = """\
import functools

import warp as wp


def make_scale(dtype):
    @wp.kernel
    def scale(a: wp.array(dtype=dtype), s: dtype):
        i = wp.tid()
        a[i] = a[i] * s

    return scale


class Registry:
    def __init__(self):
        self._factories = {"scale": make_scale}

    @functools.cache
    def get(self, name, dtype):
        return self._factories[name](dtype)


REGISTRY = Registry()


def scale_all(a, s):
    wp.launch(REGISTRY.get("scale", wp.float32), dim=a.shape, inputs=[a, s])
"""


def _write_app(project, root: str = "app", *, with_caller: bool = False, with_registry: bool = False) -> None:
    project.write(f"{root}/pyproject.toml", '[project]\nname = "app"\n')
    project.write(f"{root}/app/__init__.py", "")
    project.write(f"{root}/app/kernels.py", KERNELS)
    project.write(f"{root}/app/launches.py", LAUNCHES)
    if with_caller:
        project.write(f"{root}/app/caller.py", CALLER)
    if with_registry:
        project.write(f"{root}/app/registry.py", REGISTRY)


def _projects(cli, *paths: str) -> list[dict]:
    run = cli("model", "--json", *paths)
    assert run.rc == 0, run.err
    return json.loads(run.out)["projects"]


def test_launches_by_name_from_a_dict_and_from_the_api(cli, project):
    _write_app(project)
    (app,) = _projects(cli, "app")
    assert app["root"] == "app"
    assert app["launches"] == {"total": 3, "resolved": 2, "resolved_at_call_sites": 0, "parameter": 1, "external": [], "unresolved": []}
    assert app["block_dims"] == {"total": 3, "known": 2}  # launch_given's block_dim comes from its callers too


def test_a_kernel_the_projects_callers_pass_is_resolved(cli, project):
    _write_app(project, with_caller=True)
    (app,) = _projects(cli, "app")
    assert app["launches"] == {"total": 3, "resolved": 3, "resolved_at_call_sites": 1, "parameter": 0, "external": [], "unresolved": []}
    assert app["block_dims"] == {"total": 3, "known": 3}


def test_a_registry_that_returns_kernels_stays_unresolved_with_its_reason(cli, project):
    _write_app(project, with_registry=True)
    (app,) = _projects(cli, "app")
    launches = app["launches"]
    assert (launches["total"], launches["resolved"], launches["parameter"]) == (4, 2, 1)
    assert launches["unresolved"] == [{
        "path": "app/app/registry.py", "line": 28,
        "reason": "return value of `Registry.get` not followed", "cause": "return",
    }]  # fmt: skip


EXTERNAL = """\
import warp as wp
from extpkg.ops import TABLE, make_bundle, step
from . import kernels


def from_package(a, dtype, flag):
    wp.launch(step, dim=a.shape, inputs=[a])
    wp.launch(TABLE[dtype], dim=a.shape, inputs=[a])
    bundle = make_bundle(dtype)
    wp.launch(bundle.fill, dim=a.shape, inputs=[a])
    wp.launch(step if flag else kernels.scale, dim=a.shape, inputs=[a, 1.0])


def built_by_warp(a, integrand):
    # Warp's API builds this kernel out of the project's own function: not a package's kernel.
    wp.launch(wp.fem.cache.dynamic_kernel(integrand), dim=a.shape, inputs=[a])
"""


def test_kernels_of_installed_packages_are_followed_to_their_package(cli, project):
    """A kernel imported from a package outside the project, an entry of its table, a field
    of what its factory returns: the model knows where each comes from (it does not read
    that package). What Warp's own API builds of the project's code is not one of them."""
    _write_app(project)
    project.write("app/app/external.py", EXTERNAL)
    (app,) = _projects(cli, "app")
    launches = app["launches"]
    assert (launches["total"], launches["resolved"], launches["parameter"]) == (8, 2, 1)
    assert [(site["line"], site["reason"]) for site in launches["external"]] == [
        (7, "from `extpkg.ops.step`, outside the project"),
        (8, "from `extpkg.ops.TABLE`, outside the project"),
        (10, "from `extpkg.ops.make_bundle`, outside the project"),
        (11, "from `extpkg.ops.step`, outside the project"),
    ]
    assert [(site["line"], site["cause"]) for site in launches["unresolved"]] == [(16, "external")]
    run = cli("model", "app")
    assert "followed 7/8 (0.88): resolved 2, API parameter 1, installed packages 4; unresolved 1\n" in run.out
    assert "  launch sites of installed packages' kernels:\n    app/app/external.py:7: from `extpkg.ops.step`" in run.out


def test_text_report(cli, project):
    _write_app(project, with_registry=True)
    run = cli("model", "app")
    assert (run.rc, run.err) == (0, "")
    assert run.out == (
        "project app (4 files reported)\n"
        "  launch sites                 4  followed 3/4 (0.75): resolved 2, API parameter 1; unresolved 1\n"
        "  generic-kernel launches      0  argument types known 0\n"
        "  taped launches               0  known untaped 0, unknown 4\n"
        "  module option changes        0  target known 0\n"
        "  block_dims known             3  of 4\n"
        "  launch sites not followed:\n"
        "    app/app/registry.py:28: return value of `Registry.get` not followed\n"
    )


def test_other_figures_of_a_script(cli, project):
    """Taped and known-untaped launches, a generic kernel with known argument types, option
    targets and a block_dim chosen at run time, in a script whose runs the model sees whole."""
    project.write("sim.py", """\
import warp as wp


@wp.kernel
def add(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float32)):
    i = wp.tid()
    b[i] = a[i] + 1.0


@wp.kernel
def fill(a: wp.array(dtype=wp.Any)):
    i = wp.tid()


wp.set_module_options({"enable_backward": False})
wp.get_module("other").options["max_unroll"] = 2


def main():
    a = wp.zeros(8, dtype=wp.float32)
    b = wp.zeros(8, dtype=wp.float32)
    wp.launch(fill, dim=8, inputs=[a])
    with wp.Tape():
        wp.launch(add, dim=8, inputs=[a, b])
    wp.launch(add, dim=8, inputs=[a, b], block_dim=int(input()))


if __name__ == "__main__":
    main()
""")  # fmt: skip
    (script,) = _projects(cli, "sim.py")
    assert script["launches"] == {"total": 3, "resolved": 3, "resolved_at_call_sites": 0, "parameter": 0, "external": [], "unresolved": []}
    assert script["generic_launches"] == {"total": 1, "types_known": 1}
    assert script["tapes"] == {"taped": 1, "untaped": 2, "unknown": 0}
    assert script["option_changes"] == {"total": 2, "targets_resolved": 2}
    assert script["block_dims"] == {"total": 3, "known": 2}


def test_figures_of_a_project_do_not_depend_on_what_else_the_run_names(cli, project):
    _write_app(project, "one", with_registry=True)
    _write_app(project, "two", with_caller=True)
    alone = _projects(cli, "one") + _projects(cli, "two")
    together = _projects(cli, "one", "two")
    assert together == alone
    assert [p["root"] for p in together] == ["one", "two"]


def test_a_file_named_alone_is_measured_with_its_whole_project(cli, project):
    """Naming one file reports its launches, as the model of its whole project sees them:
    ``caller.py`` in the project makes ``launch_given``'s kernel resolved."""
    _write_app(project, with_caller=True, with_registry=True)
    (whole,) = _projects(cli, "app")
    (one,) = _projects(cli, "app/app/launches.py")
    assert one["files"] == 1
    assert one["launches"] == {"total": 3, "resolved": 3, "resolved_at_call_sites": 1, "parameter": 0, "external": [], "unresolved": []}
    (registry,) = _projects(cli, "app/app/registry.py")
    assert registry["launches"]["unresolved"] == whole["launches"]["unresolved"]
    total = one["launches"]["total"] + registry["launches"]["total"]
    assert total == whole["launches"]["total"]


def test_a_path_that_does_not_exist_is_a_usage_error(cli, project):
    run = cli("model", "missing")
    assert (run.rc, run.out) == (2, "")
    assert run.err == "warp-ct: error: missing: no such file or directory\n"


def test_no_files_is_still_a_report(cli, project):
    (project.root / "empty").mkdir()
    run = cli("model", "empty")
    assert (run.rc, run.out) == (0, "No Python files found.\n")
    assert _projects(cli, "empty") == []


def test_the_query_answers_without_the_command(project):
    """The figures come from the analyzer (``coverage``), which rules and the command share."""
    _write_app(project)
    (app,) = measure_paths(["app"], Config())
    assert (app.launches, app.resolved, app.parameter, app.unresolved) == (3, 2, 1, [])
    assert app.followed == 1.0


def test_the_readme_states_the_exit_codes(cli, project):
    from .test_docs_facts import _exit_codes

    assert _exit_codes("model") == {0, 2}


PARTS_OF_PARAMETERS = """\
import warp as wp

from .kernels import BY_NAME, scale


def dispatch(table, key, a):
    kernel = table[key]
    wp.launch(kernel, dim=a.shape, inputs=[a, 1.0])


def launch_field(family, a):
    wp.launch(family.single, dim=a.shape, inputs=[a, 1.0])


def launch_picked(table, key, a):
    wp.launch(table[key], dim=a.shape, inputs=[a, 1.0])


def launch_all(a):
    launch_picked(lookup(), "scale", a)
    launch_picked(BY_NAME, "scale", a)
"""


def test_an_entry_or_a_field_of_an_api_parameter_comes_from_the_apis_callers(project):
    # ``table[key]`` and ``family.single`` of parameters no call in the project passes: from
    # the API's callers, as the parameter itself. One the project's calls pass (one of them
    # an unknown table) is followed to them and stays unresolved.
    _write_app(project)
    project.write("app/app/parts.py", PARTS_OF_PARAMETERS)
    (app,) = measure_paths(["app/app/parts.py"], Config())
    assert (app.launches, app.resolved, app.parameter) == (3, 0, 2)
    assert [(site.line, site.cause) for site in app.unresolved] == [(16, "subscript")]
