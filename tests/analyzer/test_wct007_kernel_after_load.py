"""WCT007 kernel-after-load: definitions join a module after it was loaded."""

from __future__ import annotations

from .helpers import lint_files, lint_snippet, rule_filter

HEAD = "import warp as wp\n\n@wp.kernel\ndef init(x: wp.array(dtype=float)):\n    x[wp.tid()] = 0.0\n"


_wct007 = rule_filter("WCT007")


def test_kernel_defined_after_launch_inside_a_test_function(tmp_path):
    # warp/tests/test_static.py: one kernel launched, then the next one defined.
    text = HEAD + (
        "\ndef test_two(test, device):\n    x = wp.zeros(1, device=device)\n    wp.launch(init, 1, [x], device=device)\n"
        "\n    @wp.kernel\n    def second(x: wp.array(dtype=float)):\n        x[0] = 2.0\n\n    wp.launch(second, 1, [x], device=device)\n"
    )
    found = _wct007(lint_snippet(tmp_path, text))
    assert [f.line for f in found] == [12]
    assert "`second`" in found[0].message and "line 9" in found[0].message


def test_func_struct_and_overload_after_load(tmp_path):
    text = HEAD + (
        "\n@wp.kernel\ndef generic(x: wp.array(dtype=float), v: wp.Any):\n    x[0] = 1.0\n"
        "\nwp.force_load()\n"
        "\n@wp.func\ndef helper(a: float):\n    return a\n"
        "\n@wp.struct\nclass State:\n    x: float\n"
        "\nwp.overload(generic, {'v': int})\n"
    )
    found = _wct007(lint_snippet(tmp_path, text))
    assert [f.line for f in found] == [14, 18, 21]


def test_definitions_before_launch_are_fine(tmp_path):
    text = HEAD + "\n@wp.func\ndef helper(a: float):\n    return a\n\nx = wp.zeros(4)\nwp.launch(init, 4, [x])\n"
    assert _wct007(lint_snippet(tmp_path, text)) == []


def test_unique_kernel_and_conditional_launch(tmp_path):
    text = HEAD + (
        "\nif __name__ == '__main__':\n    wp.launch(init, 1, [wp.zeros(1)])\n"
        "\n@wp.kernel\ndef later(x: wp.array(dtype=float)):\n    x[0] = 1.0\n"
        "\ndef run(x):\n    wp.launch(init, 1, [x])\n\n    @wp.kernel(module='unique')\n    def own(x: wp.array(dtype=float)):\n        x[0] = 1.0\n"
    )
    assert _wct007(lint_snippet(tmp_path, text)) == []


def test_launch_of_an_imported_kernel_does_not_load_this_module(tmp_path):
    text = "import warp as wp\nfrom newton import kernels\n\nwp.launch(kernels.step, 1, [])\n\n@wp.kernel\ndef mine(x: wp.array(dtype=float)):\n    x[0] = 1.0\n"
    assert _wct007(lint_snippet(tmp_path, text)) == []


def test_launch_inside_another_function_is_a_different_flow(tmp_path):
    text = HEAD + "\ndef run(x):\n    wp.launch(init, 1, [x])\n\n@wp.kernel\ndef later(x: wp.array(dtype=float)):\n    x[0] = 1.0\n"
    assert _wct007(lint_snippet(tmp_path, text)) == []


def test_force_load_before_any_warp_code_of_this_file(tmp_path):
    text = "import warp as wp\nimport other_lib\n\nwp.force_load()\n\n@wp.kernel\ndef first(x: wp.array(dtype=float)):\n    x[0] = 1.0\n"
    assert _wct007(lint_snippet(tmp_path, text)) == []


GENERIC = (
    "from typing import Any\nimport warp as wp\n\n@wp.kernel\ndef clear(x: wp.array(dtype=float)):\n    x[wp.tid()] = 0.0\n\n"
    "@wp.kernel\ndef axpy(x: wp.array(dtype=Any), y: wp.array(dtype=Any), a: Any):\n    y[wp.tid()] = a * x[wp.tid()]\n"
)


def test_generic_kernel_instantiated_after_its_module_loaded(tmp_path):
    # Measured on CPU (probe): module `__main__` built twice, 2 hashes, for this shape.
    files = {
        "sim/__init__.py": "",
        "sim/kernels.py": GENERIC,
        "sim/run.py": (
            "import warp as wp\nfrom .kernels import axpy, clear\n\nclass Integrator:\n    def step(self, x, y):\n"
            "        wp.launch(clear, dim=16, inputs=[y])\n        wp.launch(axpy, dim=16, inputs=[x, y, 2.0])\n"
        ),
    }
    found = [f for f in lint_files(tmp_path, files) if f.rule == "WCT007"]
    assert [(f.path, f.line) for f in found] == [("sim/kernels.py", 9)]
    assert "`sim.run` line 7" in found[0].message and "wp.overload" in found[0].message


def test_generic_kernel_declared_up_front_or_launched_first_is_fine(tmp_path):
    declared = GENERIC + "\nwp.overload(axpy, {'x': wp.array(dtype=float), 'y': wp.array(dtype=float), 'a': float})\n"
    run = "\ndef step(x, y):\n    wp.launch(clear, dim=16, inputs=[y])\n    wp.launch(axpy, dim=16, inputs=[x, y, 2.0])\n"
    assert [f for f in lint_files(tmp_path / "a", {"m.py": declared + run}) if f.rule == "WCT007"] == []
    first = "\ndef step(x, y):\n    wp.launch(axpy, dim=16, inputs=[x, y, 2.0])\n    wp.launch(clear, dim=16, inputs=[y])\n"
    assert [f for f in lint_files(tmp_path / "b", {"m.py": GENERIC + first}) if f.rule == "WCT007"] == []


def test_factory_defining_into_a_loaded_module_through_a_call(tmp_path):
    text = (
        "import warp as wp\n\n@wp.kernel\ndef init(x: wp.array(dtype=float)):\n    x[wp.tid()] = 0.0\n\n"
        "def make_step(s: float):\n    @wp.kernel\n    def step(x: wp.array(dtype=float)):\n        x[wp.tid()] = s\n    return step\n\n"
        "def main(x):\n    wp.launch(init, dim=1, inputs=[x])\n    k = make_step(1.0)\n    wp.launch(k, dim=1, inputs=[x])\n"
    )
    found = [f for f in lint_files(tmp_path, {"m.py": text}) if f.rule == "WCT007"]
    assert [f.line for f in found] == [15] and "`make_step()`" in found[0].message


def test_one_generic_launch_site_fed_arrays_of_several_dtypes(tmp_path):
    files = {
        "la/__init__.py": "",
        "la/kernels.py": GENERIC,
        "la/ops.py": "import warp as wp\nfrom la import kernels\n\ndef axpy(x, y):\n    wp.launch(kernels.axpy, dim=x.shape, inputs=[x, y, 2.0])\n",
        "la/__main__.py": (
            "import warp as wp\nfrom la.ops import axpy\n\nfor dtype in (wp.float32, wp.float64):\n"
            "    axpy(wp.ones(8, dtype=dtype), wp.zeros(8, dtype=dtype))\n"
        ),
    }
    found = [f for f in lint_files(tmp_path, files) if f.rule == "WCT007"]
    assert [(f.path, f.line) for f in found] == [("la/kernels.py", 9)] and "several dtypes" in found[0].message
    one = dict(files, **{"la/__main__.py": "import warp as wp\nfrom la.ops import axpy\n\naxpy(wp.ones(8, dtype=float), wp.zeros(8, dtype=float))\n"})
    assert [f for f in lint_files(tmp_path / "one", one) if f.rule == "WCT007"] == []


# Kernels made on first use by properties (liblaf-apple's hyperelastic energies).
PROPERTY_CLASS = (
    "import functools\nimport warp as wp\n\n"
    "class Energy:\n"
    "    def __init__(self, x):\n        self.x = x\n{init}\n"
    "    def fun(self):\n        wp.launch(self.fun_kernel, dim=1, inputs=[self.x])\n\n"
    "    def grad(self):\n        wp.launch(self.grad_kernel, dim=1, inputs=[self.x])\n\n"
    "    @functools.cached_property\n    def fun_kernel(self):\n"
    "        @wp.kernel{unique}\n        def kernel(x: wp.array(dtype=float)):\n            x[0] = 1.0\n\n        return kernel\n\n"
    "    @functools.cached_property\n    def grad_kernel(self):\n"
    "        @wp.kernel{unique}\n        def kernel(x: wp.array(dtype=float)):\n            x[0] = 2.0\n\n        return kernel\n"
)


def _energy(init: str = "", unique: str = "") -> str:
    return PROPERTY_CLASS.format(init=init, unique=unique)


def test_property_kernel_read_after_a_sibling_launched(tmp_path):
    main = "import warp as wp\nfrom energy import Energy\n\ne = Energy(wp.zeros(1))\ne.fun()\ne.grad()\n"
    found = _wct007(lint_files(tmp_path, {"energy.py": _energy(), "main.py": main}))
    assert [(f.path, f.line) for f in found] == [("energy.py", 25)]
    assert "`Energy.grad_kernel`" in found[0].message and "made in `Energy.fun_kernel`" in found[0].message


def test_property_kernels_called_from_code_the_model_cannot_follow(tmp_path):
    # A model calls each energy through a dict: the order is the caller's, every kernel may be late.
    model = "class Model:\n    def __init__(self, energies):\n        self.energies = energies\n\n" \
            "    def step(self):\n        for e in self.energies.values():\n            e.fun()\n            e.grad()\n"
    found = _wct007(lint_files(tmp_path, {"energy.py": _energy(), "model.py": model}))
    assert [(f.path, f.line) for f in found] == [("energy.py", 17), ("energy.py", 25)]
    assert "1 other kernel(s) made the same way (`grad_kernel`)" in found[0].message


def test_property_kernels_read_up_front_or_in_unique_modules_are_fine(tmp_path):
    main = "import warp as wp\nfrom energy import Energy\n\ne = Energy(wp.zeros(1))\ne.fun()\ne.grad()\n"
    warmed = _energy(init="        self.fun_kernel\n        k = self.grad_kernel\n")
    assert _wct007(lint_files(tmp_path / "warm", {"energy.py": warmed, "main.py": main})) == []
    unique = _energy(unique='(module="unique")')
    assert _wct007(lint_files(tmp_path / "unique", {"energy.py": unique, "main.py": main})) == []
    assert _wct007(lint_files(tmp_path / "lib", {"energy.py": unique})) == []


def test_reading_a_plain_method_or_attribute_is_no_call(tmp_path):
    # ``k = self.make`` reads a bound method; ``self.kernel`` an attribute set in __init__:
    # neither runs a body, so nothing is defined late.
    text = HEAD + (
        "\nclass Sim:\n    def __init__(self, x):\n        self.x = x\n        self.kernel = init\n\n"
        "    def make(self):\n        @wp.kernel\n        def late(x: wp.array(dtype=float)):\n            x[0] = 3.0\n        return late\n\n"
        "    def run(self):\n        wp.launch(self.kernel, dim=1, inputs=[self.x])\n        k = self.make\n"
    )
    assert _wct007(lint_snippet(tmp_path, text)) == []


def test_overload_made_by_a_dispatcher_that_receives_the_kernel_after_a_load(tmp_path):
    # Isaac Lab's IndexKernelDispatcher: ``wp.overload(kernel, sig)`` in ``__init__``, built by
    # a ``functools.cache`` factory on the first wrapper call per dtype (probe of this shape:
    # 3 hashes, 3 builds of the module).
    kernels_py = (
        "from functools import cache\nfrom typing import Any\nimport warp as wp\n\n"
        "@wp.kernel\ndef concrete(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n\n"
        "@wp.kernel\ndef generic(x: wp.array(dtype=Any)):\n    x[wp.tid()] = x.dtype(1)\n\n"
        "class Dispatcher:\n    def __init__(self, kernel, dtype):\n"
        "        self.kernel = wp.overload(kernel, {\"x\": wp.array(dtype=dtype)})\n\n"
        "@cache\ndef _dispatcher(dtype):\n    return Dispatcher(generic, dtype)\n\n"
        "def write(x, dtype):\n    wp.launch(_dispatcher(dtype).kernel, dim=x.shape, inputs=[x])\n"
    )
    run = (
        "import warp as wp\nfrom pkg import kernels\n\n"
        "x = wp.zeros(4)\nwp.launch(kernels.concrete, dim=4, inputs=[x])\nkernels.write(x, wp.float32)\n"
    )
    files = {"pkg/__init__.py": "", "pkg/kernels.py": kernels_py, "run.py": run}
    found = [f for f in lint_files(tmp_path, files) if f.rule == "WCT007"]
    assert [(f.path, f.line) for f in found] == [("pkg/kernels.py", 15)]
    assert "This overload of `generic`" in found[0].message and "`run` line 5" in found[0].message
    # Dispatchers made at import, before anything is launched: nothing joins late.
    files["pkg/kernels.py"] = kernels_py + "\nDISPATCH = {wp.float32: _dispatcher(wp.float32)}\n"
    files["run.py"] = run.replace("kernels.write(x, wp.float32)", "wp.launch(kernels.DISPATCH[wp.float32].kernel, dim=4, inputs=[x])")
    assert [f for f in lint_files(tmp_path, files) if f.rule == "WCT007"] == []


def test_a_lazy_factory_asked_for_in_a_method_that_runs_after_a_launch(tmp_path):
    # Shaped like a trainer: step() calls model.forward(), which loads model's module, then
    # model.regularize(), which asks a memoized factory for a kernel of the same module.
    files = {
        "fit/__init__.py": "",
        "fit/model.py": (
            "import functools\nimport warp as wp\n\n"
            "@wp.kernel\ndef forward_k(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n\n"
            "@functools.cache\ndef _penalty_kernel():\n"
            "    @wp.kernel\n    def penalty(x: wp.array(dtype=float)):\n        x[wp.tid()] = 2.0\n\n"
            "    return penalty\n\n"
            "class Model:\n"
            "    def forward(self, x):\n        wp.launch(forward_k, dim=1, inputs=[x])\n\n"
            "    def regularize(self, x):\n        wp.launch(_penalty_kernel(), dim=1, inputs=[x])\n"
        ),
        "fit/trainer.py": (
            "from fit.model import Model\n\n"
            "def step(x):\n    model = Model()\n    model.forward(x)\n    model.regularize(x)\n"
        ),
    }
    found = [f for f in lint_files(tmp_path, files) if f.rule == "WCT007"]
    assert [(f.path, f.line) for f in found] == [("fit/model.py", 21)]
    assert "`_penalty_kernel()` defines the kernel `penalty`" in found[0].message


def test_a_branch_that_ends_in_sys_exit_is_not_followed_by_the_rest(tmp_path):
    text = (
        "import sys\nimport warp as wp\n\n"
        "@wp.kernel\ndef fill(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n\n"
        "def make():\n"
        "    @wp.kernel\n    def late(x: wp.array(dtype=float)):\n        x[wp.tid()] = 2.0\n\n"
        "    return late\n\n"
        "def main(x, capture):\n"
        "    if capture:\n        wp.launch(fill, dim=1, inputs=[x])\n        sys.exit(0)\n"
        "    k = make()\n    wp.launch(k, dim=1, inputs=[x])\n"
    )
    assert [f for f in lint_snippet(tmp_path, text) if f.rule == "WCT007"] == []


def test_generic_property_kernels_are_told_that_reading_them_early_does_not_help(tmp_path):
    # liblaf-apple: ``vec3 = Any`` at module scope, kernels typed ``wp.array(dtype=vec3)``. Their
    # types are made concrete at the first launch, so a property read up front still joins the
    # loaded module later (measured: 2 builds of the forward step with every property read first).
    generic = "from typing import Any\n" + _energy().replace("dtype=float", "dtype=vec3").replace(
        "class Energy:", "vec3 = Any\n\nclass Energy:"
    )
    main = "import warp as wp\nfrom energy import Energy\n\ne = Energy(wp.zeros(1))\ne.fun()\ne.grad()\n"
    (found,) = _wct007(lint_files(tmp_path, {"energy.py": generic, "main.py": main}))
    assert "made concrete at its first launch, so reading the properties early does not help" in found.message
    assert "or read every kernel property" not in found.message
    (plain,) = _wct007(lint_files(tmp_path / "plain", {"energy.py": _energy(), "main.py": main}))
    assert "or read every kernel property before the first launch" in plain.message


def test_a_module_level_alias_of_any_makes_a_kernel_generic(tmp_path):
    # ``scalar = Any`` then ``wp.array(dtype=scalar)``: the same open parameter as ``dtype=Any``;
    # a name rebound to a concrete type is not an alias of Any any more.
    text = (
        "from typing import Any\nimport warp as wp\n\nscalar = Any\n\n"
        "@wp.kernel\ndef first(x: wp.array(dtype=float)):\n    x[0] = 1.0\n\n"
        "@wp.kernel\ndef scale(x: wp.array(dtype=scalar)):\n    x[0] = x[0] * x[0]\n\n"
        "def run():\n    wp.launch(first, dim=1, inputs=[wp.zeros(1)])\n"
        "    wp.launch(scale, dim=1, inputs=[wp.zeros(1, dtype=wp.float64)])\n"
    )
    found = _wct007(lint_snippet(tmp_path / "alias", text))
    assert [f.line for f in found] == [11] and "generic kernel `scale`" in found[0].message
    concrete = text.replace("scalar = Any\n", "scalar = Any\nscalar = wp.float64\n")
    assert _wct007(lint_snippet(tmp_path / "concrete", concrete)) == []


def test_python_float_is_the_float32_dtype_of_a_generic_launch(tmp_path):
    # A fresh-eyes library: ``apply_gain(x)`` launches a generic kernel; the pipeline passes
    # ``wp.array(..., dtype=float)`` every step, a final check ``dtype=wp.float64`` (measured:
    # wavelab.ops 2 hashes, the float64 build after the float32 one).
    files = {
        "lab/__init__.py": "",
        "lab/ops.py": "from typing import Any\nimport warp as wp\n\n@wp.kernel\n"
        "def gain(x: wp.array(dtype=Any), y: wp.array(dtype=Any)):\n    y[wp.tid()] = x[wp.tid()]\n\n"
        "def apply_gain(x):\n    out = wp.empty_like(x)\n    wp.launch(gain, dim=1, inputs=[x, out])\n    return out\n",
        "main.py": "import warp as wp\nfrom lab.ops import apply_gain\n\n"
        "for _ in range(3):\n    apply_gain(wp.zeros(4, dtype=float))\napply_gain(wp.zeros(4, dtype=wp.float64))\n",
    }
    found = _wct007(lint_files(tmp_path / "two", files))
    assert [(f.path, f.line) for f in found] == [("lab/ops.py", 5)] and "several dtypes" in found[0].message
    one = dict(files, **{"main.py": files["main.py"].replace("dtype=wp.float64", "dtype=wp.float32")})
    assert _wct007(lint_files(tmp_path / "one", one)) == []


def test_dtypes_through_a_rebound_parameter_and_a_helper_result(tmp_path):
    # A fresh-eyes app: ``snapshot(src)`` launches a generic copy; ``step()`` passes a float
    # field, ``report()`` the result of ``gradient(T, g)``, which allocates ``g`` as vec2 when
    # the caller passes None (measured: heatflow.utils 2 hashes).
    files = {
        "heat/__init__.py": "",
        "heat/utils.py": "from typing import Any\nimport warp as wp\n\n@wp.kernel\n"
        "def copy_field(src: wp.array(dtype=Any), dst: wp.array(dtype=Any)):\n    dst[wp.tid()] = src[wp.tid()]\n\n"
        "def snapshot(src):\n    dst = wp.empty_like(src)\n    wp.launch(copy_field, dim=1, inputs=[src, dst])\n    return dst\n",
        "heat/diag.py": "import warp as wp\n\ndef gradient(T, g=None):\n    if g is None:\n"
        "        g = wp.empty(T.shape, dtype=wp.vec2)\n    return g\n",
        "heat/solver.py": "import warp as wp\nfrom heat import diag\nfrom heat.utils import snapshot\n\n"
        "class Solver:\n    def __init__(self):\n        self.T = wp.zeros(8, dtype=float)\n        self.grad = None\n\n"
        "    def step(self):\n        snapshot(self.T)\n\n    def report(self):\n"
        "        self.grad = diag.gradient(self.T, self.grad)\n        snapshot(self.grad)\n\n"
        "    def run(self):\n        for _ in range(3):\n            self.step()\n        self.report()\n",
        "main.py": "from heat.solver import Solver\n\nSolver().run()\n",
    }
    found = _wct007(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("heat/utils.py", 5)] and "several dtypes" in found[0].message


_DTYPE_HELPER = (
    "import numpy as np\nimport warp as wp\nfrom typing import Any\n\n"
    "@wp.kernel\ndef double(x: wp.array(dtype=Any), out: wp.array(dtype=Any)):\n    out[wp.tid()] = x[wp.tid()] * 2.0\n\n"
    "def warp_dtype(x):\n    if x.dtype == np.float64:\n        return wp.float64\n    return wp.float32\n\n"
    "def run(x):\n    a = wp.array(x, dtype=warp_dtype(x))\n    wp.launch(double, dim=a.shape, inputs=[a, wp.empty_like(a)])\n\n"
)


def test_dtype_chosen_by_a_helper_from_data_of_several_dtypes(tmp_path):
    # A dispatch helper (one return per dtype) fed float32, then float64 data: two instantiations.
    text = _DTYPE_HELPER + "run(np.ones(4, np.float32))\nrun(np.ones(4, dtype=np.float64))\n"
    found = _wct007(lint_snippet(tmp_path, text))
    assert [f.line for f in found] == [6] and "several dtypes" in found[0].message


def test_dtype_helper_fed_one_dtype_is_one_instantiation(tmp_path):
    # The helper could return float64, but no call gives it float64 data.
    text = _DTYPE_HELPER + "run(np.ones(4, np.float32))\nrun(np.zeros(8, np.float32))\n"
    assert _wct007(lint_snippet(tmp_path, text)) == []


def test_dtype_helper_mapping_to_other_types_is_unknown(tmp_path):
    # A helper that maps a vector dtype to its scalar returns no dtype of its arguments: unknown.
    text = _DTYPE_HELPER.replace("wp.array(x, dtype=warp_dtype(x))", "wp.zeros(4, dtype=warp_dtype(x))") + (
        "run(wp.zeros(4, dtype=wp.vec3))\nrun(wp.zeros(4, dtype=wp.vec3d))\n"
    )
    assert _wct007(lint_snippet(tmp_path, text)) == []


def test_generic_kernels_overloaded_at_import_by_a_helper_that_receives_them(tmp_path):
    # nvalchemiops: ``register_overloads(kernel, sig_builder, dtypes=...)`` (warp_dispatch.py)
    # calls ``wp.overload(kernel, ...)`` on its parameter, once per dtype, into module-scope
    # tables (segment_ops.py); warp-nn's _softmax.py does the same with a dict comprehension.
    # Measured (probe, segment_ops on CPU, float32 and float64, tile then RLE kernels): one
    # hash, one build. A generic kernel no helper receives is still late (nose_hoover.py's
    # batched chain kernel: 2 hashes, 2 builds).
    dispatch = (
        "import warp as wp\n\n"
        "def register_overloads(kernel, signature_builder, *, dtypes):\n"
        "    out = {}\n    for dt in dtypes:\n        out[dt] = wp.overload(kernel, signature_builder(dt))\n    return out\n"
    )
    ops = (
        "from typing import Any\nimport warp as wp\nfrom pkg.dispatch import register_overloads\n\n"
        "@wp.kernel\ndef total(x: wp.array(dtype=Any), out: wp.array(dtype=Any)):\n    wp.atomic_add(out, 0, x[wp.tid()])\n\n"
        "@wp.kernel\ndef tail(x: wp.array(dtype=Any), out: wp.array(dtype=Any)):\n    wp.atomic_add(out, 0, x[wp.tid()])\n\n"
        "@wp.kernel\ndef chain(x: wp.array(dtype=Any)):\n    x[wp.tid()] = x[wp.tid()]\n\n"
        "_total = register_overloads(total, lambda t: [wp.array(dtype=t), wp.array(dtype=t)], dtypes=[wp.float32, wp.float64])\n"
        "_tail = register_overloads(tail, lambda t: [wp.array(dtype=t), wp.array(dtype=t)], dtypes=[wp.float32, wp.float64])\n\n"
        "def segmented_sum(x, out):\n"
        "    wp.launch_tiled(_total[x.dtype], dim=1, inputs=[x, out], block_dim=256)\n"
        "    wp.launch(_tail[x.dtype], dim=x.shape, inputs=[x, out])\n"
    )
    softmax = (
        "from typing import Any\nimport warp as wp\n\n"
        "@wp.kernel\ndef _max(x: wp.array(dtype=Any), m: wp.array(dtype=Any)):\n    m[0] = x[wp.tid()]\n\n"
        "@wp.kernel\ndef _sum_exp(x: wp.array(dtype=Any), m: wp.array(dtype=Any)):\n    m[0] = x[wp.tid()]\n\n"
        "def overload_kernels(kernel):\n"
        "    return {dtype: wp.overload(kernel, [wp.array(dtype=dtype)] * 2) for dtype in (wp.float32, wp.float64)}\n\n"
        "_MAX = overload_kernels(_max)\n_SUM_EXP = overload_kernels(_sum_exp)\n\n"
        "class Softmax:\n    def __call__(self, x, m):\n"
        "        wp.launch(_MAX[x.dtype], dim=x.shape, inputs=[x, m])\n"
        "        wp.launch(_SUM_EXP[x.dtype], dim=x.shape, inputs=[x, m])\n"
    )
    files = {"pkg/__init__.py": "", "pkg/dispatch.py": dispatch, "pkg/ops.py": ops, "pkg/softmax.py": softmax}
    assert [f for f in lint_files(tmp_path / "up_front", files) if f.rule == "WCT007"] == []
    late = ops + "\ndef step(x, out):\n    wp.launch(_total[x.dtype], dim=1, inputs=[x, out])\n    wp.launch(chain, dim=x.shape, inputs=[x])\n"
    found = [f for f in lint_files(tmp_path / "late", dict(files, **{"pkg/ops.py": late})) if f.rule == "WCT007"]
    assert [(f.path, f.line) for f in found] == [("pkg/ops.py", 14)] and "`chain`" in found[0].message


# --- issue 36 item 3b: kernels added by a method, cached variants, struct types from a loop

SOLVER = (
    "import warp as wp\n\n\n@wp.kernel\ndef init(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n\n\n"
    "class Solver:\n    def __init__(self, x):\n        self.x = x\n        self.terms = []\n"
    "        wp.launch(init, dim=x.shape, inputs=[x])\n\n"
    "    def add_term(self, gain: float):\n        @wp.kernel\n        def apply(x: wp.array(dtype=float)):\n"
    "            x[wp.tid()] = x[wp.tid()] * gain\n\n        self.terms.append(apply)\n\n"
    "    def step(self):\n        for term in self.terms:\n            wp.launch(term, dim=self.x.shape, inputs=[self.x])\n"
)


def test_a_method_that_adds_a_kernel_after_the_first_launch(tmp_path):
    # A solver whose constructor launches, then `add_term()` defines a kernel into the same
    # module and keeps it (no return): measured (fixture method_adds_kernel_after_launch),
    # the module is built twice.
    files = {
        "sim/__init__.py": "",
        "sim/solver.py": SOLVER,
        "sim/__main__.py": (
            "import warp as wp\nfrom sim.solver import Solver\n\n\ndef main():\n"
            "    solver = Solver(wp.zeros(8, dtype=float))\n    solver.add_term(2.0)\n    solver.step()\n"
        ),
    }
    found = _wct007(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("sim/__main__.py", 7)]
    assert "`Solver.add_term()` defines the kernel `apply`" in found[0].message and "`init`" in found[0].message


def test_a_method_that_adds_a_kernel_before_any_launch_is_fine(tmp_path):
    text = SOLVER.replace("        wp.launch(init, dim=x.shape, inputs=[x])\n", "")
    files = {
        "sim/__init__.py": "",
        "sim/solver.py": text,
        "sim/__main__.py": (
            "import warp as wp\nfrom sim.solver import Solver\n\n\ndef main():\n"
            "    solver = Solver(wp.zeros(8, dtype=float))\n    solver.add_term(2.0)\n    solver.step()\n"
        ),
    }
    assert _wct007(lint_files(tmp_path, files)) == []


CACHED = (
    "import functools\n\nimport warp as wp\n\n\n@functools.cache\ndef sum_kernel(dtype, ndim):\n"
    "    @wp.kernel\n    def total(x: wp.array(dtype=dtype, ndim=ndim), out: wp.array(dtype=dtype)):\n"
    "        wp.atomic_add(out, 0, x[wp.tid()])\n\n    return total\n\n\n"
    "def reduce(x):\n    out = wp.zeros(1, dtype=x.dtype)\n"
    "    wp.launch(sum_kernel(x.dtype, x.ndim), dim=x.shape, inputs=[x, out])\n    return out\n"
)


def test_a_cached_factory_asked_for_another_dtype_after_the_first_launch(tmp_path):
    # warp.utils-style cached reductions: one kernel per (dtype, ndim) in the factory's
    # module. The float64 variant joins the module the float32 launch loaded: measured 2
    # builds, 2 hashes (fixture cached_variants_after_launch).
    main = (
        "import warp as wp\nfrom red.kernels import reduce\n\n\ndef main():\n"
        "    reduce(wp.zeros(8, dtype=float))\n    reduce(wp.zeros(8, dtype=wp.float64))\n"
    )
    files = {"red/__init__.py": "", "red/kernels.py": CACHED, "red/__main__.py": main}
    found = _wct007(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("red/kernels.py", 17)]
    assert "new variant of the kernel `total`" in found[0].message


def test_a_cached_factory_asked_again_for_the_same_dtype_is_fine(tmp_path):
    # The cache answers the second call: nothing joins the module.
    main = (
        "import warp as wp\nfrom red.kernels import reduce\n\n\ndef main():\n"
        "    reduce(wp.zeros(8, dtype=float))\n    reduce(wp.zeros(16, dtype=float))\n"
    )
    files = {"red/__init__.py": "", "red/kernels.py": CACHED, "red/__main__.py": main}
    assert _wct007(lint_files(tmp_path, files)) == []


def test_a_cached_factory_called_at_two_sites_with_other_dtypes(tmp_path):
    text = CACHED + (
        "\n\ndef both(a, b):\n    out = wp.zeros(1, dtype=float)\n"
        "    wp.launch(sum_kernel(wp.float32, 1), dim=a.shape, inputs=[a, out])\n"
        "    wp.launch(sum_kernel(wp.float64, 1), dim=b.shape, inputs=[b, out])\n"
    )
    same = text.replace("sum_kernel(wp.float64, 1)", "sum_kernel(wp.float32, 1)")
    found = _wct007(lint_files(tmp_path / "a", {"k.py": text}))
    assert [f.line for f in found] == [24]
    assert _wct007(lint_files(tmp_path / "b", {"k.py": same})) == []


def test_struct_types_from_a_loop_over_the_struct_classes(tmp_path):
    # `for cls in (Sphere, Box): measure(cls())`: one generic kernel launched with each struct type.
    kernels_text = (
        "from typing import Any\n\nimport warp as wp\n\n\n@wp.struct\nclass Sphere:\n    radius: float\n\n\n"
        "@wp.struct\nclass Box:\n    half: float\n\n\n@wp.kernel\ndef size(shape: Any, out: wp.array(dtype=float)):\n"
        "    out[0] = 1.0\n"
    )
    files = {
        "shapes/__init__.py": "",
        "shapes/kernels.py": kernels_text,
        "shapes/measure.py": (
            "import warp as wp\nfrom shapes import kernels\n\n\ndef measure(shape):\n"
            "    out = wp.zeros(1, dtype=float)\n    wp.launch(kernels.size, dim=1, inputs=[shape, out])\n"
        ),
        "shapes/__main__.py": (
            "from shapes import kernels\nfrom shapes.measure import measure\n\n\ndef main():\n"
            "    for cls in (kernels.Sphere, kernels.Box):\n        measure(cls())\n"
        ),
    }
    found = _wct007(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("shapes/kernels.py", 17)]
    assert "`Box`, `Sphere`" in found[0].message
    one = dict(files, **{"shapes/__main__.py": files["shapes/__main__.py"].replace("(kernels.Sphere, kernels.Box)", "(kernels.Sphere,)")})
    assert _wct007(lint_files(tmp_path / "one", one)) == []


# --- a factory's kernel in a module named per call: each variant is another kernel object

_WRITERS = (
    "from typing import Any\n\nimport warp as wp\n\n\n"
    "@wp.struct\nclass A:\n    x: wp.array(dtype=float)\n\n\n"
    "@wp.struct\nclass B:\n    x: wp.array(dtype=float)\n\n\n"
    "@wp.func\ndef write_a(d: Any, i: int):\n    d.x[i] = 1.0\n\n\n"
    "@wp.func\ndef write_b(d: Any, i: int):\n    d.x[i] = 2.0\n\n\n"
)


def _narrow_phase(module: str, construct: str) -> str:
    # newton's narrow phase: `self.kernel` is made per writer; two objects, two structs.
    return _WRITERS + (
        "def make(writer: Any):\n"
        f"    @wp.kernel(module={module})\n"
        "    def narrow(data: Any):\n        writer(data, wp.tid())\n\n    return narrow\n\n\n"
        "class Phase:\n"
        "    def __init__(self, writer: Any = None):\n"
        "        self.writer = write_a if writer is None else writer\n"
        "        self.kernel = make(self.writer)\n\n"
        "    def launch_custom(self, data: Any):\n        wp.launch(self.kernel, dim=4, inputs=[data])\n\n\n"
        "def run():\n"
        "    a = A()\n    a.x = wp.zeros(4)\n    b = B()\n    b.x = wp.zeros(4)\n"
        f"{construct}"
    )


def test_factory_kernel_in_a_module_per_writer_is_not_one_instance(tmp_path):
    # Each writer's kernel lands in `narrow_<writer>`: A and B never meet in one module
    # (probe on tests/programs/writer_per_instance: two modules, each built once).
    construct = "    first = Phase()\n    first.launch_custom(a)\n    second = Phase(writer=write_b)\n    second.launch_custom(b)\n"
    text = _narrow_phase('f"narrow_{writer.key}"', construct)
    assert _wct007(lint_snippet(tmp_path, text)) == []
    unique = _narrow_phase('"unique"', construct)
    assert _wct007(lint_snippet(tmp_path, unique)) == []


def test_factory_kernel_made_once_with_fixed_arguments_still_gets_both_types(tmp_path):
    # One call site with a module-level name: one variant, launched with A and then B.
    text = _WRITERS + (
        "def make(writer: Any):\n"
        '    @wp.kernel(module=f"narrow_{writer.key}")\n'
        "    def narrow(data: Any):\n        writer(data, wp.tid())\n\n    return narrow\n\n\n"
        "KERNEL = make(write_a)\n\n\n"
        "def launch(data: Any):\n    wp.launch(KERNEL, dim=4, inputs=[data])\n\n\n"
        "def run():\n"
        "    a = A()\n    a.x = wp.zeros(4)\n    b = B()\n    b.x = wp.zeros(4)\n"
        "    launch(a)\n    launch(b)\n"
    )
    found = _wct007(lint_snippet(tmp_path, text))
    assert len(found) == 1 and "several `wp.struct` types (`A`, `B`)" in found[0].message


def test_factory_kernel_in_the_file_module_still_gets_both_types(tmp_path):
    # No module of its own: every variant joins the file's module, loaded by the first launch.
    construct = "    first = Phase()\n    first.launch_custom(a)\n    second = Phase(writer=write_b)\n    second.launch_custom(b)\n"
    text = _narrow_phase("None", construct)
    found = _wct007(lint_snippet(tmp_path, text))
    assert found, "a variant in the shared file module joins the loaded module"


def test_structs_of_one_name_are_told_apart_by_their_modules(tmp_path):
    struct = "import warp as wp\n\n\n@wp.struct\nclass Data:\n    x: wp.array(dtype=float)\n\n\ndef make():\n    d = Data()\n    d.x = wp.zeros(4)\n    return d\n"
    files = {
        "app/__init__.py": "",
        "app/first.py": struct,
        "app/second.py": struct,
        "app/run.py": (
            "from typing import Any\n\nimport warp as wp\n\nfrom app import first, second\n\n\n"
            "@wp.kernel\ndef fill(data: Any):\n    data.x[wp.tid()] = 1.0\n\n\n"
            "def launch(data: Any):\n    wp.launch(fill, dim=4, inputs=[data])\n\n\n"
            "def run():\n    launch(first.make())\n    launch(second.make())\n"
        ),
    }
    found = _wct007(lint_files(tmp_path, files))
    assert len(found) == 1, found
    assert "(`first.Data`, `second.Data`)" in found[0].message


# dismech-newton's CudssSolver: one generic kernel converts the right-hand side into buffers in
# the solver's precision (made by a generator, the dtype chosen by a flag) and the solution back
# out; the types arrive through ``outputs=`` (measured: tests/programs/generic_output_precision,
# 3 builds with 3 hashes).
_PRECISION_SOLVER = (
    "from typing import Any\nimport warp as wp\n\n"
    "@wp.kernel\ndef convert(src: wp.array(dtype=Any), dst: wp.array(dtype=Any)):\n    dst[wp.tid()] = src[wp.tid()]\n\n"
    "class Solver:\n    def __init__(self, n, single=False):\n"
    "        dtype = wp.float32 if single else wp.float64\n"
    "        self._b, self._x = (wp.zeros(n, dtype=dtype) for _ in range(2))\n\n"
    "    def solve(self, b, x):\n"
    "        wp.launch(convert, dim=1, inputs=[b], outputs=[self._b])\n"
    "        wp.launch(convert, dim=1, inputs=[self._x], outputs=[x])\n\n"
)


def test_generic_types_through_outputs_and_generated_buffers(tmp_path):
    text = _PRECISION_SOLVER + "Solver(8, single=True).solve(wp.zeros(8), wp.zeros(8))\nSolver(8).solve(wp.zeros(8), wp.zeros(8))\n"
    found = _wct007(lint_snippet(tmp_path, text))
    assert [f.line for f in found] == [5] and "several dtypes (`wp.float32`, `wp.float64`)" in found[0].message


def test_a_flag_every_caller_gives_alike_picks_one_dtype(tmp_path):
    # Every solver is made in float32: the other arm of the choice is never taken.
    text = _PRECISION_SOLVER + "Solver(8, single=True).solve(wp.zeros(8), wp.zeros(8))\nSolver(4, True)\n"
    assert _wct007(lint_snippet(tmp_path, text)) == []


def test_generated_buffers_of_one_dtype_are_one_instantiation(tmp_path):
    text = _PRECISION_SOLVER.replace("wp.float32 if single else wp.float64", "wp.float64") + (
        "Solver(8, single=True).solve(wp.zeros(8, dtype=wp.float64), wp.zeros(8, dtype=wp.float64))\n"
    )
    assert _wct007(lint_snippet(tmp_path, text)) == []


def test_outputs_of_other_dtypes_at_two_launches_of_one_flow(tmp_path):
    # The inputs agree; the outputs' dtypes differ: two instantiations in one step.
    text = (
        "from typing import Any\nimport warp as wp\n\n"
        "@wp.kernel\ndef convert(src: wp.array(dtype=Any), dst: wp.array(dtype=Any)):\n    dst[wp.tid()] = src[wp.tid()]\n\n"
        "def step(x):\n    a = wp.zeros(4, dtype=wp.float32)\n    b = wp.zeros(4, dtype=wp.float64)\n"
        "    wp.launch(convert, dim=4, inputs=[x], outputs=[a])\n    wp.launch(convert, dim=4, inputs=[x], outputs=[b])\n\n"
        "step(wp.zeros(4, dtype=wp.float32))\n"
    )
    found = _wct007(lint_snippet(tmp_path, text))
    assert [f.line for f in found] == [5]
    same = text.replace("b = wp.zeros(4, dtype=wp.float64)", "b = wp.zeros(4, dtype=wp.float32)")
    assert _wct007(lint_snippet(tmp_path / "same", same)) == []


def test_a_one_return_dtype_choice_helper_fed_one_dtype_is_one_instantiation(tmp_path):
    # ``return wp.float64 if ... else wp.float32`` dispatches as two returns do: float32 data only.
    text = _DTYPE_HELPER.replace(
        "    if x.dtype == np.float64:\n        return wp.float64\n    return wp.float32\n",
        "    return wp.float64 if x.dtype == np.float64 else wp.float32\n",
    ) + "run(np.ones(4, np.float32))\nrun(np.zeros(8, np.float32))\n"
    assert _wct007(lint_snippet(tmp_path, text)) == []


# mjlab's expand_model_fields: each field of a model object repeated per world by one generic
# kernel; the dtypes are the object's attributes (measured: tests/programs/generic_model_fields,
# 3 builds with 3 hashes).
_MODEL_FIELDS = (
    "from typing import Any\nimport warp as wp\n\n"
    "@wp.kernel\ndef repeat(src: wp.array(dtype=Any), dst: wp.array(dtype=Any)):\n    dst[wp.tid()] = src[wp.tid()]\n\n"
    "class Model:\n    def __init__(self):\n"
    "        self.pos = wp.zeros((1, 4), dtype=wp.vec3)\n        self.mass = wp.zeros((1, 4), dtype=wp.float32)\n\n"
    "def tile(x, n):\n    dst = wp.empty((n, x.shape[1]), dtype=x.dtype)\n"
    "    wp.launch(repeat, dim=dst.size, inputs=[x.flatten()], outputs=[dst.flatten()])\n    return dst\n\n"
    "def expand(model, n):\n    return tile(model.pos, n), tile(model.mass, n)\n\n"
)


def test_generic_types_from_a_model_objects_attributes(tmp_path):
    found = _wct007(lint_snippet(tmp_path, _MODEL_FIELDS + "expand(Model(), 4)\n"))
    assert [f.line for f in found] == [5] and "several dtypes (`wp.float32`, `wp.vec3`)" in found[0].message


def test_model_attributes_of_one_dtype_are_one_instantiation(tmp_path):
    text = _MODEL_FIELDS.replace("dtype=wp.vec3", "dtype=wp.float32") + "expand(Model(), 4)\n"
    assert _wct007(lint_snippet(tmp_path, text)) == []


def test_an_attribute_written_outside_its_class_is_unknown(tmp_path):
    # ``model.pos = ...`` elsewhere: some object's attribute of that name, maybe this one's.
    text = _MODEL_FIELDS + "m = Model()\nm.pos = wp.zeros((1, 4), dtype=wp.float32)\nexpand(m, 4)\n"
    assert _wct007(lint_snippet(tmp_path, text)) == []


def test_each_object_answers_for_its_own_class(tmp_path):
    # Two models handed to one helper: their own attributes, together.
    other = (
        "class Other:\n    def __init__(self):\n        self.pos = wp.zeros((1, 4), dtype=wp.float64)\n"
        "        self.mass = wp.zeros((1, 4), dtype=wp.float64)\n\n"
    )
    alike = _MODEL_FIELDS.replace("dtype=wp.vec3", "dtype=wp.float32")
    found = _wct007(lint_snippet(tmp_path, alike + other + "expand(Model(), 4)\nexpand(Other(), 4)\n"))
    assert [f.line for f in found] == [5] and "(`wp.float32`, `wp.float64`)" in found[0].message
    same = other.replace("wp.float64", "wp.float32")
    assert _wct007(lint_snippet(tmp_path / "same", alike + same + "expand(Model(), 4)\nexpand(Other(), 4)\n")) == []


_WARMED = (
    "import functools\nimport warp as wp\n\n"
    "@wp.kernel\ndef init(x: wp.array(dtype=float)):\n    x[wp.tid()] = 0.0\n\n"
    "@functools.cache\ndef make(dtype):\n    @wp.kernel\n    def k(x: wp.array(dtype=dtype)):\n        x[wp.tid()] = x[wp.tid()]\n\n"
    "    return k\n\n"
    "for _dtype in (wp.float32, wp.vec3):\n    make(_dtype)\n\n"
    "def step(x):\n    wp.launch(init, dim=1, inputs=[x])\n    wp.launch(make({asked}), dim=1, inputs=[x])\n\n"
    "step(wp.zeros(1, dtype=float))\n"
)


def test_a_memoized_factory_warmed_at_import_answers_from_its_cache(tmp_path):
    # Every variant was made at import, before any launch: the step's call is a cache hit.
    assert _wct007(lint_snippet(tmp_path, _WARMED.format(asked="wp.float32"))) == []
    assert _wct007(lint_snippet(tmp_path / "dtype", _WARMED.format(asked="x.dtype"))) == []


def test_a_value_the_warm_up_did_not_ask_for_defines_a_variant(tmp_path):
    found = _wct007(lint_snippet(tmp_path, _WARMED.format(asked="wp.float64")))
    assert [f.line for f in found] == [21] and "`make()`" in found[0].message


def test_an_indexed_element_of_a_comprehension_list(tmp_path):
    # ``bufs[1]`` is one of what the comprehension makes: float32, then float64 out.
    text = (
        "from typing import Any\nimport warp as wp\n\n"
        "@wp.kernel\ndef copy(src: wp.array(dtype=Any), dst: wp.array(dtype=Any)):\n    dst[wp.tid()] = src[wp.tid()]\n\n"
        "def step():\n    bufs = [wp.zeros(4, dtype=wp.float32) for _ in range(2)]\n"
        "    out = wp.zeros(4, dtype=wp.float64)\n"
        "    wp.launch(copy, dim=4, inputs=[bufs[0]], outputs=[bufs[1]])\n"
        "    wp.launch(copy, dim=4, inputs=[bufs[1]], outputs=[out])\n\nstep()\n"
    )
    found = _wct007(lint_snippet(tmp_path, text))
    assert [f.line for f in found] == [5] and "launched at line 12 with other types than at line 11" in found[0].message
    same = text.replace("out = wp.zeros(4, dtype=wp.float64)", "out = wp.zeros(4, dtype=wp.float32)")
    assert _wct007(lint_snippet(tmp_path / "same", same)) == []


def test_fields_read_by_name_from_a_list(tmp_path):
    # ``for field in FIELDS: tile(getattr(model, field))``: each named attribute's dtype.
    expand = "def expand(model, n):\n    return tile(model.pos, n), tile(model.mass, n)\n\n"
    by_name = (
        "FIELDS = ('pos', 'mass')\n\ndef expand(model, n, fields=FIELDS):\n"
        "    return [tile(getattr(model, field), n) for field in fields]\n\n"
    )
    text = _MODEL_FIELDS.replace(expand, by_name) + "expand(Model(), 4)\n"
    assert by_name in text
    found = _wct007(lint_snippet(tmp_path, text))
    assert [f.line for f in found] == [5] and "(`wp.float32`, `wp.vec3`)" in found[0].message
    unknown = text.replace("expand(Model(), 4)\n", "import sys\nexpand(Model(), 4, sys.argv[1:])\n")
    assert _wct007(lint_snippet(tmp_path / "unknown", unknown)) == []
