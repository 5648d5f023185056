"""Property-based: no generated source makes a rule raise (no WCT901) or the engine crash."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz.harness import assert_no_crash, lint_everything

hypothesmith = pytest.importorskip("hypothesmith")

SETTINGS = settings(
    max_examples=int(__import__("os").environ.get("WARP_CT_FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
    derandomize=True,  # CI sees the same examples every run; widen locally with --hypothesis-seed
)


@SETTINGS
@given(hypothesmith.from_grammar())
def test_any_python_from_the_grammar(source: str) -> None:
    assert_no_crash(lint_everything(source), source)


@settings(SETTINGS, max_examples=max(5, SETTINGS.max_examples // 4))  # ~1 s an example to generate
@given(hypothesmith.from_node())
def test_any_python_from_ast_nodes(source: str) -> None:
    assert_no_crash(lint_everything(source), source)


# ---------------------------------------------------------------------- Warp-shaped fragments
IMPORTS = st.sampled_from([
    "import warp as wp", "import warp", "from warp import kernel, launch, config",
    "import warp.config", "from warp import *", "from . import wp", "from .util import wp, kernel",
    "wp = None", "import warp as wp, os", "from warp import config as cfg", "",
])  # fmt: skip
DECORATORS = st.sampled_from([
    "@wp.kernel", "@wp.kernel()", '@wp.kernel(module="unique")', '@wp.kernel(module_options={"enable_backward": False})',
    '@wp.kernel(module="unique", module_options=opts)', "@wp.kernel(enable_backward=False)", "@wp.kernel(**kw)",
    "@wp.kernel(*a)", "@kernel", "@warp.kernel", "@wp.func", "@wp.struct", "@wp.overload", "@functools.cache",
    "@lru_cache(maxsize=None)", "@wp.kernel(module=wp.get_module(__name__))", "@wp.kernel(module=name)",
    "@(lambda f: f)", "@wp.func_native(snippet)", "@staticmethod", "@wp.kernel(module_options=1)",
])  # fmt: skip
EXPRS = st.sampled_from([
    "1", "None", "x", "wp", "wp.config", "-1", '"cpu"', "[1, 2]", "{}", "{**d}", "f()", "(yield)", "lambda: 0",
    "wp.get_module(__name__)", "wp.get_module()", "*args", "k", "k.module", "a[0]", "(x := 3)", "...",
    "wp.get_suggested_block_size(k)", "max_workers", "os.environ", "tempfile.mkdtemp()", '"unique"',
])  # fmt: skip
CALLEES = st.sampled_from([
    "wp.launch", "wp.launch_tiled", "wp.set_module_options", "wp.get_module", "wp.force_load", "wp.load_module",
    "wp.clear_kernel_cache", "wp.clear_lto_cache", "wp.overload", "wp.Tape", "tape.backward", "shutil.rmtree",
    "wp.get_module(__name__).options.update", "os.environ.setdefault", "wp.get_suggested_block_size", "launch",
    "wp.kernel", "wp.ScopedDevice", "wp.synchronize", "wp.get_module_options",
])  # fmt: skip
KEYWORDS = st.sampled_from([
    "dim", "inputs", "block_dim", "device", "module", "max_workers", "recursive", "options", "adjoint",
    "enable_backward", "module_options", "outputs", "",
])  # fmt: skip
CONFIG_ATTRS = st.sampled_from([
    "enable_backward", "max_unroll", "lineinfo", "use_precompiled_headers", "cache_kernels", "kernel_cache_dir",
    "mode", "deterministic", "verify_fp",
])  # fmt: skip


@st.composite
def call(draw) -> str:
    args = draw(st.lists(EXPRS, max_size=3))
    kws = [f"{k}={draw(EXPRS).lstrip('*')}" if k else f"**{draw(EXPRS).lstrip('*')}" for k in draw(st.lists(KEYWORDS, max_size=3))]
    return f"{draw(CALLEES)}({', '.join(args + kws)})"


@st.composite
def statement(draw, depth: int = 0) -> list[str]:
    kind = draw(st.integers(0, 9 if depth < 3 else 5))
    if kind == 0:
        return [draw(IMPORTS)]
    if kind in (1, 2):
        return [draw(call())]
    if kind == 3:
        target = draw(st.sampled_from(["wp.config", "warp.config", "cfg", "config", "wp.get_module(__name__).options"]))
        return [f"{target}.{draw(CONFIG_ATTRS)} = {draw(EXPRS).lstrip('*')}"]
    if kind == 4:
        return [f"{draw(st.sampled_from(['x', 'k', 'opts', 'block', 'a, b']))} = {draw(EXPRS).lstrip('*')}"]
    if kind == 5:
        return [f"with {draw(call())} as tape:", "    pass"]
    # compound statements with a nested body
    body = [line for _ in range(draw(st.integers(1, 3))) for line in draw(statement(depth + 1))] or ["pass"]
    indented = ["    " + line for line in body]
    if kind in (6, 7):
        decorators = draw(st.lists(DECORATORS, max_size=2))
        name = draw(st.sampled_from(["k", "kern", "make", "f", "__init__", "λ"]))
        params = draw(st.sampled_from(["", "a: wp.array(dtype=float)", "*args, **kw", "x, /, y=1, *, z", "self"]))
        return [*decorators, f"def {name}({params}):", *indented, "    return " + draw(EXPRS).lstrip("*")]
    if kind == 8:
        return [f"class {draw(st.sampled_from(['C', 'Model']))}:", *indented]
    return [f"{draw(st.sampled_from(['if x:', 'for i in range(3):', 'while k:', 'try:']))}", *indented] + (
        ["except Exception:", "    pass"] if False else []
    )


@st.composite
def warp_module(draw) -> str:
    lines = ["import warp as wp"]
    for _ in range(draw(st.integers(1, 12))):
        lines.extend(draw(statement()))
    source = "\n".join(lines) + "\n"
    return source.replace("try:\n", "if True:\n")


@settings(max_examples=2 * int(__import__("os").environ.get("WARP_CT_FUZZ_EXAMPLES", "60")), deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(warp_module())
def test_warp_shaped_sources(source: str) -> None:
    try:
        compile(source, "<fuzz>", "exec")
    except SyntaxError:
        pass  # still must not crash: the engine reports WCT900
    assert_no_crash(lint_everything(source), source)
