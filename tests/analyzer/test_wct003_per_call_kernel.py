"""WCT003 per-call-kernel: kernel factories that re-run without memoization."""

from __future__ import annotations

from warp_ct.analyzer.fixes import apply_fixes

from .helpers import lint_files, lint_snippet, rule_filter

FACTORY = """\
def make(n: int):
    @wp.kernel
    def add(x: wp.array(dtype=int)):
        i = wp.tid()
        x[i] = x[i] + n

    return add
"""
CALLER = "\ndef step(x, n):\n    wp.launch(make(n), dim=1, inputs=[x])\n"


_wct003 = rule_filter("WCT003")


def _src(*parts):
    return "".join(parts)


def test_factory_called_per_step_is_reported_with_unsafe_memoize_fix(tmp_path):
    text = _src("import warp as wp\n\n", FACTORY, CALLER)
    found = _wct003(lint_snippet(tmp_path, text))
    assert [f.line for f in found] == [5]
    assert "`n`" in found[0].message and "Memoize" in found[0].message
    fix = found[0].fixes[0]
    assert not fix.is_safe
    fixed = apply_fixes(text, found, unsafe=True).text
    assert fixed.startswith("import functools\nimport warp as wp\n\n@functools.cache\ndef make(n: int):")


def test_fix_reuses_existing_functools_import(tmp_path):
    text = _src("import functools as ft\nimport warp as wp\n\n", FACTORY, CALLER)
    fixed = apply_fixes(text, _wct003(lint_snippet(tmp_path, text)), unsafe=True).text
    assert "@ft.cache\ndef make" in fixed and fixed.count("import functools") == 1


def test_kernel_capturing_nothing_is_told_to_move_to_module_scope(tmp_path):
    text = (
        "import warp as wp\n\ndef run(x):\n    @wp.kernel\n    def inc(x: wp.array(dtype=int)):\n"
        "        i = wp.tid()\n        x[i] = x[i] + 1\n\n    wp.launch(inc, dim=1, inputs=[x])\n\n"
        "def loop(x):\n    for _ in range(10):\n        run(x)\n"
    )
    found = _wct003(lint_snippet(tmp_path, text))
    assert len(found) == 1 and "module scope" in found[0].message
    assert found[0].fixes == ()  # memoizing would skip the launch on later calls


def test_standard_memoizers_silence_it(tmp_path):
    for header, deco in [
        ("import functools\n", "@functools.cache\n"),
        ("import functools\n", "@functools.lru_cache(maxsize=None)\n"),
        ("import functools\n", "@functools.lru_cache\n"),
        ("from functools import lru_cache\n", "@lru_cache\n"),
        ("from functools import lru_cache\n", "@lru_cache(maxsize=64)\n"),
        ("from functools import cache\n", "@cache\n"),
        ("from functools import cache as memo\n", "@memo\n"),
    ]:
        text = _src(header, "import warp as wp\n\n", deco, FACTORY, CALLER)
        assert _wct003(lint_snippet(tmp_path, text)) == [], (header, deco)


def test_project_dict_cache_decorator_in_another_file(tmp_path):
    files = {
        "utils/__init__.py": "",
        "utils/caching.py": (
            "def kernel_cache(fn):\n    cache = {}\n\n    def wrapper(*args):\n"
            "        if args in cache:\n            return cache[args]\n"
            "        result = fn(*args)\n        cache[args] = result\n        return result\n\n    return wrapper\n"
        ),
        "sim.py": _src("import warp as wp\nfrom utils.caching import kernel_cache\n\n@kernel_cache\n", FACTORY, CALLER),
    }
    assert _wct003(lint_files(tmp_path, files)) == []


def test_project_decorator_factory_with_setdefault(tmp_path):
    files = {
        "cache.py": (
            "import functools\n_CACHE = {}\n\ndef dynamic_kernel(suffix):\n    def deco(fn):\n"
            "        @functools.wraps(fn)\n        def wrapper(*args):\n"
            "            key = (suffix, args)\n            return _CACHE.setdefault(key, fn(*args))\n"
            "        return wrapper\n    return deco\n"
        ),
        "sim.py": _src("import warp as wp\nimport cache\n\n@cache.dynamic_kernel(suffix='x')\n", FACTORY, CALLER),
    }
    assert _wct003(lint_files(tmp_path, files)) == []


def test_project_decorator_that_does_not_cache_is_not_memoization(tmp_path):
    files = {
        "deco.py": "def traced(fn):\n    def wrapper(*args):\n        print(args)\n        return fn(*args)\n    return wrapper\n",
        "sim.py": _src("import warp as wp\nfrom deco import traced\n\n@traced\n", FACTORY, CALLER),
    }
    assert len(_wct003(lint_files(tmp_path, files))) == 1


def test_inline_module_dict_cache(tmp_path):
    text = (
        "import warp as wp\n\n_kernels = {}\n\ndef get(dtype):\n    if dtype not in _kernels:\n"
        "        @wp.kernel\n        def fill(x: wp.array(dtype=dtype)):\n            x[wp.tid()] = dtype(0)\n\n"
        "        _kernels[dtype] = fill\n    return _kernels[dtype]\n\ndef run(x):\n    wp.launch(get(x.dtype), dim=1, inputs=[x])\n"
    )
    assert _wct003(lint_snippet(tmp_path, text)) == []


def test_instance_cache_in_method(tmp_path):
    text = (
        "import warp as wp\n\nclass Solver:\n    def __init__(self):\n        self._kernels = {}\n\n"
        "    def _kernel(self, n):\n        k = self._kernels.get(n)\n        if k is None:\n"
        "            @wp.kernel\n            def add(x: wp.array(dtype=int)):\n                x[wp.tid()] += n\n\n"
        "            k = self._kernels[n] = add\n        return k\n\n"
        "    def step(self, x, n):\n        wp.launch(self._kernel(n), dim=1, inputs=[x])\n"
    )
    assert _wct003(lint_snippet(tmp_path, text)) == []


def test_caller_that_caches_results(tmp_path):
    text = _src(
        "import warp as wp\n\n", FACTORY,
        "\n_cache = {}\n\ndef get(n):\n    if n not in _cache:\n        _cache[n] = make(n)\n    return _cache[n]\n",
    )
    assert _wct003(lint_snippet(tmp_path, text)) == []


def test_factory_only_called_at_module_level(tmp_path):
    text = _src("import warp as wp\n\n", FACTORY, "\nadd_one = make(1)\nkernels = {n: make(n) for n in range(4)}\n")
    assert _wct003(lint_snippet(tmp_path, text)) == []


def test_main_and_tests_run_once(tmp_path):
    text = (
        "import warp as wp\n\ndef main():\n    @wp.kernel\n    def k(x: wp.array(dtype=int)):\n        x[0] = 1\n\n"
        "def test_k(test, device):\n    @wp.kernel\n    def k2(x: wp.array(dtype=int)):\n        x[0] = 2\n\n"
        "class TestK:\n    def test_k3(self):\n        @wp.kernel\n        def k3(x: wp.array(dtype=int)):\n            x[0] = 3\n\n"
        "if __name__ == '__main__':\n    main()\n"
    )
    assert _wct003(lint_snippet(tmp_path, text)) == []


def test_helpers_called_only_from_tests(tmp_path):
    text = _src("import warp as wp\n\n", FACTORY, "\ndef test_add(test, device):\n    for n in range(3):\n        make(n)\n")
    assert _wct003(lint_snippet(tmp_path, text)) == []


def test_unique_or_named_module_on_a_hot_path_is_reported_too(tmp_path):
    # Identical re-declarations reuse a unique module (no rebuild) but cost ~0.1-0.7 ms each;
    # a module named per call (uuid) is a new module, built again, on every call.
    text = (
        "import uuid\nimport warp as wp\n\ndef make(n):\n    @wp.kernel(module='unique')\n    def a(x: wp.array(dtype=int)):\n        x[0] = n\n    return a\n\n"
        "def make2(n):\n    name = f'm_{uuid.uuid4().hex}'\n    @wp.kernel(module=name)\n    def b(x: wp.array(dtype=int)):\n        x[0] = n\n    return b\n\n"
        "def run(x):\n    wp.launch(make(1), dim=1, inputs=[x])\n    wp.launch(make2(1), dim=1, inputs=[x])\n"
    )
    found = _wct003(lint_snippet(tmp_path, text))
    assert [f.line for f in found] == [6, 13]
    assert "0.1-3 ms" in found[0].message


def test_private_helper_without_callers_is_unknown(tmp_path):
    # warp/tests: helpers run in a subprocess by name (`m._run_block_dim_mismatch(...)`).
    text = "import warp as wp\n\ndef _run(mode):\n    @wp.kernel\n    def k(x: wp.array(dtype=int)):\n        x[0] = 1\n    wp.launch(k, dim=1, inputs=[wp.zeros(1, dtype=int)])\n"
    assert _wct003(lint_snippet(tmp_path, text)) == []


def test_public_factory_without_callers_is_unknown(tmp_path):
    # A library API nobody in the linted code calls: how often it runs cannot be told
    # (once per object and once per process cost nothing worth a warning), so: silent.
    assert _wct003(lint_snippet(tmp_path, _src("import warp as wp\n\n", FACTORY))) == []


def test_factory_passed_around_is_unknown(tmp_path):
    # warp/examples/benchmarks: CREATORS = {1: create_1d}; create = CREATORS[n]; create(...) per size:
    # the call through the table does not tell which function runs.
    text = _src("import warp as wp\n\n", FACTORY, "\nCREATORS = {1: make}\n\ndef bench(sizes):\n    for s in sizes:\n        CREATORS[1](4)\n")
    assert _wct003(lint_snippet(tmp_path, text)) == []


def test_factory_called_from_a_run_method_in_another_file(tmp_path):
    files = {
        "app/__init__.py": "",
        "app/kernels.py": _src("import warp as wp\n\n", FACTORY),
        "app/pipeline.py": (
            "import warp as wp\nfrom .kernels import make\n\nclass Pipeline:\n    def __init__(self, n):\n        self.n = n\n\n"
            "    def run(self, x):\n        wp.launch(make(self.n), dim=1, inputs=[x])\n"
        ),
    }
    found = _wct003(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("app/kernels.py", 5)]
    assert "Pipeline.run" in found[0].message


def test_factory_called_once_per_object_is_fine(tmp_path):
    # Re-declaring an identical kernel costs ~0.1-0.7 ms and no rebuild: nothing to say once per object.
    text = _src(
        "import warp as wp\n\n", FACTORY,
        "\nclass Layer:\n    def __init__(self, n):\n        self.kernel = make(n)\n\n"
        "    def forward(self, x):\n        wp.launch(self.kernel, dim=1, inputs=[x])\n",
    )  # fmt: skip
    assert _wct003(lint_snippet(tmp_path, text)) == []


def test_kernel_rebuilt_only_when_a_setting_changes_is_fine(tmp_path):
    text = (
        "import warp as wp\n\nclass Clip:\n    def __init__(self):\n        self._max_norm = None\n\n"
        "    def step(self, x, max_norm):\n        if max_norm != self._max_norm:\n            self._max_norm = max_norm\n\n"
        "            @wp.kernel\n            def clip(x: wp.array(dtype=float)):\n                x[0] = wp.min(x[0], max_norm)\n\n"
        "            self._kernel = clip\n        wp.launch(self._kernel, dim=1, inputs=[x])\n"
    )
    assert _wct003(lint_snippet(tmp_path, text)) == []


def test_module_and_class_scope_kernels_are_fine(tmp_path):
    text = "import warp as wp\n\n@wp.kernel\ndef a(x: wp.array(dtype=int)):\n    x[0] = 1\n\nclass K:\n    @wp.kernel\n    def b(x: wp.array(dtype=int)):\n        x[0] = 2\n"
    assert _wct003(lint_snippet(tmp_path, text)) == []


def test_nested_factory_chain_memoized_at_the_top(tmp_path):
    text = (
        "import functools\nimport warp as wp\n\n@functools.cache\ndef outer(n):\n    def inner():\n"
        "        @wp.kernel\n        def k(x: wp.array(dtype=int)):\n            x[0] = n\n        return k\n    return inner()\n\n"
        "def run(x):\n    wp.launch(outer(1), dim=1, inputs=[x])\n"
    )
    assert _wct003(lint_snippet(tmp_path, text)) == []


def test_caller_called_in_a_loop_by_the_script(tmp_path):
    # examples/lint/per_call_kernel.py: step() runs every frame and re-creates the kernel.
    text = _src("import warp as wp\n\n", FACTORY, CALLER, "\nif __name__ == '__main__':\n    for n in range(4):\n        step(None, n)\n")
    assert len(_wct003(lint_snippet(tmp_path, text))) == 1
    once = _src("import warp as wp\n\n", FACTORY, CALLER, "\nif __name__ == '__main__':\n    step(None, 1)\n")
    assert _wct003(lint_snippet(tmp_path, once)) == []


def test_module_global_cache_in_project_decorator_two_space_indent(tmp_path):
    # mujoco_warp/_src/warp_util.py shape: a wrapper keyed into a module-level dict.
    files = {
        "mjw/__init__.py": "",
        "mjw/util.py": (
            "import functools\n\n_KERNELS = {}\n\ndef cache_kernel(func):\n  @functools.wraps(func)\n"
            "  def wrapper(*args):\n    key = tuple(args) + (func.__name__,)\n    if key not in _KERNELS:\n"
            "      _KERNELS[key] = func(*args)\n    return _KERNELS[key]\n\n  return wrapper\n"
        ),
        "mjw/solver.py": (
            "import warp as wp\n\nfrom . import util\n\n@util.cache_kernel\ndef make(n: int):\n  @wp.kernel\n"
            "  def add(x: wp.array(dtype=int)):\n    x[wp.tid()] += n\n\n  return add\n\n"
            "def step(x, n):\n  wp.launch(make(n), dim=1, inputs=[x])\n"
        ),
    }
    assert _wct003(lint_files(tmp_path, files)) == []


# A factory whose kernel captures a local computed from its parameter, called in a loop.
BLUR_LOOP = (
    "import warp as wp\n\n"
    "def make_blur(radius: int):\n"
    "    taps = 2 * radius + 1\n\n"
    "    @wp.kernel\n"
    "    def blur(x: wp.array(dtype=float)):\n"
    "        x[wp.tid()] = x[wp.tid()] / float(taps)\n\n"
    "    return blur\n\n"
    "def main(x):\n"
    "    radius = 1\n"
    "    for frame in range(10):\n"
    "        wp.launch(make_blur(radius), dim=1, inputs=[x])\n"
)


def test_a_captured_local_follows_the_parameter_it_is_computed_from(tmp_path):
    text = BLUR_LOOP + "        radius += 1  # read by the call above on the next pass\n"
    found = _wct003(lint_snippet(tmp_path, text))
    assert [f.line for f in found] == [7]
    assert "captures `taps`: each new value" in found[0].message


def test_a_local_fixed_before_the_loop_keeps_one_value(tmp_path):
    text = BLUR_LOOP + "        shown = radius + 1  # another name: radius stays 1\n"
    found = _wct003(lint_snippet(tmp_path, text))
    assert [f.line for f in found] == [7]
    assert "with the same captured values Warp reuses the build" in found[0].message


def test_a_kernel_defined_in_a_loop_names_the_loop_variable_it_captures(tmp_path):
    text = (
        "import warp as wp\n\n"
        "def check(x, ops):\n"
        "    fixed = wp.zeros(1)\n"
        "    for op in ops:\n\n"
        "        @wp.kernel\n"
        "        def apply(x: wp.array(dtype=float), y: wp.array(dtype=fixed.dtype)):\n"
        "            x[wp.tid()] = wp.static(op)(x[wp.tid()])\n\n"
        "        wp.launch(apply, dim=1, inputs=[x, fixed])\n"
    )
    found = _wct003(lint_snippet(tmp_path, text))
    assert [f.line for f in found] == [8]
    assert "(defined in a loop) and captures `op`:" in found[0].message  # not `fixed`: one value per call
    assert found[0].message.endswith("Create the kernels once, before the loop.")


def test_a_method_that_launches_the_kernel_it_makes_is_told_to_keep_the_kernel_not_to_memoize(tmp_path):
    # ``Damper.__call__`` defines and launches: a cache on it would skip the launch (and arrays
    # are not hashable). The kernel belongs in ``__init__`` or at module scope.
    text = (
        "import warp as wp\n\nclass Damper:\n    def __init__(self, factor):\n        self.factor = factor\n\n"
        "    def __call__(self, v):\n        factor = self.factor\n\n"
        "        @wp.kernel\n        def damp(v: wp.array(dtype=float)):\n            v[wp.tid()] = v[wp.tid()] * factor\n\n"
        "        wp.launch(damp, dim=v.shape, inputs=[v])\n\n"
        "def run(v):\n    d = Damper(0.9)\n    for _ in range(10):\n        d(v)\n"
    )
    (found,) = _wct003(lint_snippet(tmp_path, text))
    assert "Create the kernel once (at module scope" in found.message and "Memoize" not in found.message
    assert found.fixes == ()


def test_a_self_attribute_a_method_updates_from_itself_is_a_changing_capture(tmp_path):
    # ``decay()`` halves ``self.scale`` between steps: each ``step()`` captures a new value
    # (measured: 4 steps, sim.kern 4 hashes / 4 builds, 5.4 s).
    files = {
        "sim/__init__.py": "",
        "sim/kern.py": "import warp as wp\n\ndef make_shift(offset: float):\n    @wp.kernel\n"
        "    def shift(x: wp.array(dtype=float)):\n        x[wp.tid()] = x[wp.tid()] + offset\n\n    return shift\n",
        "sim/model.py": "import warp as wp\nfrom sim.kern import make_shift\n\nclass Model:\n"
        "    def __init__(self, n):\n        self.x = wp.zeros(n)\n        self.scale = 1.0\n\n"
        "    def decay(self):\n        self.scale = self.scale * 0.5\n\n"
        "    def step(self):\n        wp.launch(make_shift(self.scale), dim=1, inputs=[self.x])\n",
        "sim/__main__.py": "from sim.model import Model\n\nm = Model(16)\nfor _ in range(4):\n    m.step()\n    m.decay()\n",
    }
    (found,) = _wct003(lint_files(tmp_path / "decays", files))
    assert "captures `offset`: each new value gives this file's Warp module a new hash" in found.message
    fixed = dict(files, **{"sim/model.py": files["sim/model.py"].replace("self.scale * 0.5", "0.5")})
    (same,) = _wct003(lint_files(tmp_path / "fixed", fixed))  # 1.0 then 0.5: still two values
    assert "captures `offset`" in same.message
    constant = dict(files, **{"sim/model.py": files["sim/model.py"].replace("self.scale = self.scale * 0.5", "pass")})
    (kept,) = _wct003(lint_files(tmp_path / "constant", constant))
    assert "with the same captured values Warp reuses the build" in kept.message


def test_a_public_method_that_defines_and_launches_a_kernel_capturing_its_argument(tmp_path):
    # A fresh-eyes library: ``PointCloud.clip_above(height)`` defines ``below`` capturing
    # ``height`` and launches it; no linted caller says how often, the callers decide
    # (measured: pointkit.cloud 4 hashes / 4 builds for 4 frames).
    body = (
        "import warp as wp\n\nclass PointCloud:\n    def __init__(self, points):\n        self.points = points\n\n"
        "    def clip_above(self, height):\n        @wp.kernel\n"
        "        def below(p: wp.array(dtype=float), m: wp.array(dtype=int)):\n"
        "            m[wp.tid()] = 1 if p[wp.tid()] <= height else 0\n\n"
        "        mask = wp.empty(4, dtype=int)\n        wp.launch(below, dim=4, inputs=[self.points, mask])\n        return mask\n"
    )
    (found,) = _wct003(lint_files(tmp_path / "public", {"cloud.py": body}))
    assert found.line == 9 and "a public API, whose callers decide how often" in found.message
    assert "captures `height`: each new value" in found.message
    # A switch (``= None``), a private helper, a unique module of its own: designs for a few variants.
    for name, text in (
        ("switch", body.replace("clip_above(self, height)", "clip_above(self, height=None)")),
        ("private", body.replace("def clip_above", "def _clip_above")),
        ("unique", body.replace("        @wp.kernel\n", '        @wp.kernel(module="unique")\n')),
    ):
        assert _wct003(lint_files(tmp_path / name, {"cloud.py": text})) == [], name


# ``module="unique"`` kernels made in a loop, one per value of what the loop moves on: a module
# per variant is the intent, and "create them before the loop" cannot be done.
UNIQUE_PER_PASS = (
    "import warp as wp\n\n"
    "def check(x, ops):\n"
    "    for op in ops:\n"
    "        @wp.kernel(module='unique')\n"
    "        def apply(x: wp.array(dtype=float)):\n"
    "            x[wp.tid()] = wp.static(op)(x[wp.tid()])\n\n"
    "        wp.launch(apply, dim=1, inputs=[x])\n\n"
    "def build(sizes):\n"
    "    kernels = {}\n"
    "    for n in sizes:\n"
    "        twice = 2 * n\n\n"
    "        @wp.kernel(module='unique')\n"
    "        def fill(x: wp.array(dtype=int)):\n"
    "            x[wp.tid()] = n + twice\n\n"
    "        kernels[n] = fill\n"
    "    return kernels\n\n"
    "def build_doubled(x):\n"
    "    scale = 1.0\n"
    "    for _ in range(4):\n"
    "        scale *= 2.0\n\n"
    "        @wp.kernel(module='unique')\n"
    "        def grow(x: wp.array(dtype=float)):\n"
    "            x[wp.tid()] = x[wp.tid()] * scale\n\n"
    "        wp.launch(grow, dim=1, inputs=[x])\n\n"
    "def test_dtypes(test, device):\n"
    "    for i, dtype in enumerate((wp.float32, wp.float64)):\n"
    "        @wp.kernel(module='unique')\n"
    "        def zero(x: wp.array(dtype=dtype)):\n"
    "            x[wp.tid()] = dtype(0)\n\n"
    "        wp.launch(zero, dim=1, inputs=[wp.zeros(1, dtype=dtype)])\n\n"
    "KERNELS = build([1, 2, 3])\n\n"
    "if __name__ == '__main__':\n"
    "    check(wp.zeros(1), [wp.sin, wp.cos])\n"
    "    build_doubled(wp.zeros(1))\n"
)


def test_unique_kernels_made_one_per_pass_of_a_loop_are_not_reported(tmp_path):
    assert _wct003(lint_snippet(tmp_path, UNIQUE_PER_PASS)) == []


def test_the_same_loops_are_reported_in_a_shared_module_on_a_hot_path_or_without_a_changing_capture(tmp_path):
    # A shared module: each pass gives it a new hash.
    shared = UNIQUE_PER_PASS.replace("@wp.kernel(module='unique')", "@wp.kernel")
    assert [f.line for f in _wct003(lint_snippet(tmp_path / "shared", shared))] == [6, 17, 29, 37]
    # The function runs every step: every step re-declares all of them.
    hot = UNIQUE_PER_PASS + "\ndef step(x):\n    check(x, [wp.sin])\n"
    found = _wct003(lint_snippet(tmp_path / "hot", hot))
    assert [f.line for f in found] == [6] and "(defined in a loop)" not in found[0].message
    # Nothing that changes between passes is captured: one kernel, declared again on each pass.
    same = UNIQUE_PER_PASS.replace("x[wp.tid()] * scale", "x[wp.tid()] * 2.0")
    found = _wct003(lint_snippet(tmp_path / "same", same))
    assert [f.line for f in found] == [29] and "Define it once at module scope" in found[0].message


def test_a_comprehension_over_settings_makes_each_variant_once(tmp_path):
    # newton's test_convex_contact_witness: one kernel per sign made up front in a
    # comprehension, then launched in a loop: each variant is needed, none is made again.
    text = (
        "import warp as wp\n\n\n"
        "def make(sign: float):\n"
        "    @wp.kernel\n    def k(x: wp.array(dtype=float)):\n        x[0] = sign\n\n    return k\n\n\n"
        "def check_signs(x, cases):\n"
        "    kernels = {sign: make(sign) for sign in (-1.0, 1.0)}\n"
        "    for sign in cases:\n        wp.launch(kernels[sign], dim=1, inputs=[x])\n"
    )
    assert [f for f in lint_snippet(tmp_path, text) if f.rule == "WCT003"] == []
    # The same comprehension in a step that runs on every call makes them again each time.
    again = text.replace("def check_signs(x, cases)", "def step(x, cases)")
    assert [f.line for f in lint_snippet(tmp_path, again) if f.rule == "WCT003"] == [6]


_CALLED_CAPTURE = (
    "import warp as wp\n\n\ndef make_fn(s):\n    @wp.func\n    def f(x: float):\n        return x * s\n    return f\n\n\n"
    "def check(x, test_fn, s):\n"
    "    if isinstance(test_fn, wp.Function):\n        fn = test_fn\n"
    "    else:\n        fn, _ = wp.utils.create_warp_function(test_fn)\n"
    "    g = make_fn(s)\n\n"
    "    @wp.kernel(module='unique')\n    def k(a: wp.array(dtype=float)):\n        a[0] = {call}(a[0])\n\n"
    "    wp.launch(k, dim=1, inputs=[x])\n\n\n"
    "def run(x):\n    for s in range(3):\n        check(x, lambda v: v > 0.0, float(s))\n"
)


def test_a_called_capture_is_code_the_same_function_reuses_the_build(tmp_path):
    # newton's test_body_state: the kernel calls the wp.Function a caller passes, or the one
    # create_warp_function makes of its Python function (keyed by its source): the same test
    # re-declares the same kernel (measured: 3 calls, 1 build), it is no new value per call.
    found = _wct003(lint_snippet(tmp_path, _CALLED_CAPTURE.format(call="fn")))
    assert len(found) == 1 and "Warp reuses the build" in found[0].message


def test_a_called_capture_made_from_data_is_still_a_new_value(tmp_path):
    # A Warp function a factory makes of a number differs with the number.
    found = _wct003(lint_snippet(tmp_path, _CALLED_CAPTURE.format(call="g")))
    assert len(found) == 1 and "each new value builds a new module" in found[0].message
