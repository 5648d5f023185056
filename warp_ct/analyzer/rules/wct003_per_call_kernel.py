"""WCT003 per-call-kernel."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from warp_ct.analyzer import syntax
from warp_ct.analyzer.context import FileContext, KernelDecorator
from warp_ct.analyzer.facts import KernelFact, Value, const, exclusive
from warp_ct.analyzer.memo import is_memoized
from warp_ct.analyzer.program import UNIQUE, Freq, Frequency, FunctionRef, Program, is_test_path
from warp_ct.analyzer.model import Applicability, Severity
from warp_ct.analyzer.rules.base import Rule

if TYPE_CHECKING:
    from warp_ct.analyzer.project import FileSummary, Project

_NESTED_KERNEL_TEXT = r"^[ \t]+@[ \t]*[\w.]*kernel\b"
_NESTED_KERNEL_RE = re.compile(_NESTED_KERNEL_TEXT, re.MULTILINE)


class PerCallKernel(Rule):
    code = "WCT003"
    name = "per-call-kernel"
    severity = Severity.WARNING
    summary = "A `@wp.kernel` defined inside a function that re-runs without memoization is re-created on every call"
    fix_applicability = Applicability.UNSAFE
    triggers = (_NESTED_KERNEL_TEXT,)
    docs = '''
    ## What it does
    Flags a `@wp.kernel` defined inside a function (a kernel factory) when nothing keeps
    the kernels it makes: no `functools.cache` / `lru_cache`, no dict cache in a decorator
    or in the function itself, and no memoized caller.

    ## Why it costs compile time
    Each call defines a new kernel object and adds it to the file's Warp module, which
    marks the module modified. When the kernel captures values that differ between calls,
    every call produces a new module hash and a new build of the whole module (the field
    report: one module recompiled five times with growing hashes, 96.8 s down to 42.5 s
    once the kernels were made once). Even when the captured values repeat, the module is
    hashed again after every call.

    ## Example
    ```python
    import warp as wp

    def make_scale(s: float):
        @wp.kernel
        def scale(x: wp.array(dtype=float)):  # WCT003
            i = wp.tid()
            x[i] = s * x[i]

        return scale

    def step(x):
        wp.launch(make_scale(0.5), dim=x.shape, inputs=[x])
    ```

    ## Use instead
    Memoize the factory, so each distinct argument builds its kernel once:
    ```python
    import functools

    import warp as wp

    @functools.cache
    def make_scale(s: float):
        @wp.kernel
        def scale(x: wp.array(dtype=float)):
            i = wp.tid()
            x[i] = s * x[i]

        return scale

    _kernels = {}

    def make_offset(dtype):
        if dtype not in _kernels:
            @wp.kernel
            def offset(x: wp.array(dtype=dtype)):
                i = wp.tid()
                x[i] = x[i] + dtype(1)

            _kernels[dtype] = offset
        return _kernels[dtype]
    ```
    A kernel that captures nothing from the function is better defined once at module
    scope.

    ## When not to apply
    Not reported: kernels in `main()` and in test functions (they run once per process
    or per test), factories only called at module level (they run once per import, up
    front), and `module="unique"` kernels made one per variant (identical re-declarations
    reuse their module, and a new module per distinct capture is the intent): in a
    factory that does not run on every step, or in a loop, one per value of the loop
    variable (or of a local computed from it, or moved on by each pass) that they capture.
    A `module="unique"` kernel re-declared on every step of a hot path is still reported
    (each re-declaration costs 0.1-3 ms), and so is one a loop declares again identical
    on each pass:
    ```python
    import warp as wp

    def make_add(n: int):
        @wp.kernel
        def add(x: wp.array(dtype=int)):
            i = wp.tid()
            x[i] = x[i] + n

        return add

    add_one = make_add(1)
    add_two = make_add(2)

    def make_clamp(hi: float):
        @wp.kernel(module="unique")
        def clamp(x: wp.array(dtype=float)):
            i = wp.tid()
            x[i] = wp.min(x[i], hi)

        return clamp

    def make_fills(values):
        fills = {}
        for v in values:
            @wp.kernel(module="unique")
            def fill(x: wp.array(dtype=float)):
                x[wp.tid()] = v

            fills[v] = fill
        return fills

    def test_add(device):
        @wp.kernel
        def inc(x: wp.array(dtype=int)):
            i = wp.tid()
            x[i] = x[i] + 1

        wp.launch(inc, dim=1, inputs=[wp.zeros(1, dtype=int, device=device)], device=device)
    ```
    The automatic fix adds `@functools.cache` to the factory. It is unsafe: every
    argument must be hashable, and equal arguments then share one kernel object.
    '''

    def needs_tree(self, summary: "FileSummary", project: "Project") -> bool:
        # The model knows every kernel defined in a function and how often that function
        # runs: a tree is needed only where such a kernel sits on a hot path.
        program = project.program()
        facts = project.facts(summary)
        return any(_hot_definition(program, facts.module, kernel) is not None for kernel in facts.kernels)

    def visit_functiondef(self, node: ast.FunctionDef, ctx: FileContext) -> None:
        dec = ctx.kernel_decorator(node)
        if dec is None:
            return
        chain = syntax.enclosing_functions(node)
        if not chain:
            return  # module or class scope: defined once per import
        kernel = _kernel_fact(ctx, node)
        if kernel is None:
            return
        program = ctx.program
        hot = _hot_definition(program, ctx.module_name, kernel)
        if hot is None:
            return
        if any(is_memoized(func, ctx) for func in chain):
            return
        factory = chain[0]
        # A function that launches the kernel it makes, rather than returning it, is no
        # factory to memoize (the cache would skip the launch): the kernel moves out of it.
        keep = None if _returns_name(factory, node.name) else _launch_here_advice(factory)
        message = _message(program, ctx.module_name, kernel, factory.name, hot, keep)
        fix = _memoize_fix(dec, factory, ctx)
        ctx.report(node, message, fixes=[fix] if fix else [])


def _kernel_fact(ctx: FileContext, node: ast.FunctionDef) -> KernelFact | None:
    for kernel in ctx.facts.kernels:
        if kernel.name == node.name and kernel.span[0] == node.lineno:
            return kernel
    return None


def _hot_definition(program: Program, module: str, kernel: KernelFact) -> Frequency | None:
    """How often a nested kernel's definition runs, when that is "many times" and nothing
    keeps what it makes (a memoized factory, a cache or a changed-value guard)."""
    if kernel.function is None or kernel.decorator != "kernel" or kernel.cache_guarded:
        return None
    ref = FunctionRef(module, kernel.function)
    if program.memoized(ref):
        return None
    frequency = program.frequency(ref)
    if frequency.freq == Freq.UNCALLED and not kernel.loop_depth:
        return _public_api_definition(program, ref, kernel)
    if frequency.freq != Freq.HOT and not kernel.loop_depth:
        return None
    if frequency.freq == Freq.HOT:
        return frequency
    if _one_unique_kernel_per_pass(program, ref, kernel):
        return None
    return Frequency(Freq.HOT, _IN_A_LOOP)


def _one_unique_kernel_per_pass(program: Program, ref: FunctionRef, kernel: KernelFact) -> bool:
    """A ``module="unique"`` kernel defined in a loop that captures what changes from one pass
    to the next (the loop variable, or a local computed from it or moved on by the pass): each
    pass makes another kernel in a module of its own, which is what the loop is for; it
    cannot be made before the loop."""
    if kernel.module is None:
        return False
    modules = program.resolve(ref.module, kernel.function, kernel.module)
    if not modules or any(m != UNIQUE for m in modules):
        return False
    fact = program.function(ref)
    if fact is None:
        return False
    for name in kernel.captures:
        per_pass = name in fact.loop_tables or any(_moves_per_pass(v) for v in fact.locals.get(name, ()))
        if per_pass and program.capture_varies(ref, name):
            return True
    return False


def _moves_per_pass(value: Value, depth: int = 0) -> bool:
    """The value reads a loop variable (``elem``) or one the loop moves on (``changed``)."""
    if value.kind in ("elem", "changed"):
        return True
    return depth < 8 and any(_moves_per_pass(item, depth + 1) for item in value.items)


def _public_api_definition(program: Program, ref: FunctionRef, kernel: KernelFact) -> Frequency | None:
    """A public function or method no linted code calls, that defines a kernel capturing one
    of its parameters and launches it there (``PointCloud.clip_above(height)``): each call
    with a new value is a new kernel, whoever the callers are. A factory that returns its
    kernel leaves keeping it to the caller; tests and entry points run once."""
    fact = program.function(ref)
    if fact is None or "<locals>" in ref.qualname or kernel.module is not None:
        # A kernel of its own module (``module="unique"``) specialised per call, as
        # mujoco-warp's ``reset_data(m, d, reset=None)`` is, costs a build per distinct value
        # only: a design for a few variants. One that joins the file's module rebuilds it all.
        return None
    name = fact.name
    if name.startswith("_") or name.startswith("test") or name in ("main", "run_once", "setUp", "setup"):
        return None
    # Data the caller passes each time; an optional object (``= None``) is a switch.
    params = [p for p in kernel.captures if p in fact.params and p not in ("self", "cls")
              and fact.defaults.get(p) != const(None)]  # fmt: skip
    if not params:
        return None
    facts = program.modules[ref.module]
    launched_here = any(
        launch.function == ref.qualname and launch.kind.startswith("launch")
        and launch.kernel.kind in ("name", "local") and launch.kernel.data == kernel.name
        for launch in facts.launches
    )  # fmt: skip
    if not launched_here:
        return None
    return Frequency(Freq.HOT, "a public API, whose callers decide how often")


_IN_A_LOOP = "defined in a loop"  # hot only by the loop around the definition


def _captured_values(program: Program, module: str, kernel: KernelFact) -> tuple[list[str], list[str]]:
    """(captured names, those whose values differ between definitions)."""
    ref = FunctionRef(module, kernel.function)
    return list(kernel.captures), [name for name in kernel.captures
                                   if program.capture_varies(ref, name, called=name in kernel.called_captures)]


def _launch_here_advice(function: _Function) -> str:
    # What it captures may be a number (it can become a kernel argument) or a function or
    # type (it cannot): a dict keyed by the captured value serves both.
    if isinstance(function.parent, ast.ClassDef):
        return ("Create the kernel once (at module scope taking a number it captures as an argument, in `__init__`, "
                "or in a dict keyed by what it captures) and launch that one here")  # fmt: skip
    return ("Keep one kernel per captured value (in a dict keyed by it, or one kernel at module scope taking a "
            "number as an argument) and launch that one here")  # fmt: skip


def _message(program: Program, module: str, kernel: KernelFact, factory: str, hot: Frequency,
             keep: str | None = None) -> str:  # fmt: skip
    """``keep``: what to do instead of memoizing, for a function that launches the kernel it makes."""
    names, varying = _captured_values(program, module, kernel)
    data_names = [n for n in names if n in (program.function(FunctionRef(module, kernel.function)) or _NO_FN).params
                  or not _is_definition(program, module, kernel, n)]  # fmt: skip
    own_module = kernel.module is not None
    varying_data = [n for n in data_names if n in varying]
    in_loop_only = hot.why == _IN_A_LOOP
    if in_loop_only:  # what changes from one pass of the loop to the next: its variables
        function = program.function(FunctionRef(module, kernel.function)) or _NO_FN
        varying_data = [n for n in varying_data if n in function.loop_tables]
    if varying_data:
        listed = ", ".join(f"`{n}`" for n in varying_data[:3])
        effect = ("builds a new module for it" if own_module
                  else "gives this file's Warp module a new hash and builds it again, whole")  # fmt: skip
        advice = ("Create the kernels once, before the loop" if in_loop_only
                  else keep or f"Memoize `{factory}` (e.g. `@functools.cache`) or create the kernels once, up front")  # fmt: skip
        return (
            f"The kernel `{kernel.name}` is defined again on every call of `{factory}` ({hot.why}) and captures "
            f"{listed}: each new value {effect}. {advice}."
        )
    after = _loaded_before(program, module, kernel)
    rebuild = (f" It also joins this file's module after the launch on line {after}, so the first call builds "
               "the module again." if after is not None and not own_module else "")  # fmt: skip
    return (
        f"The kernel `{kernel.name}` is defined again on every call of `{factory}` ({hot.why}): with the same "
        "captured values Warp reuses the build, but each re-declaration costs about 0.1-3 ms, 15-200x the "
        f"launch itself.{rebuild} "
        + ("Define it once at module scope." if not data_names
           else f"{keep}." if keep else f"Memoize `{factory}` (e.g. `@functools.cache`).")  # fmt: skip
    )


def _loaded_before(program: Program, module: str, kernel: KernelFact) -> int | None:
    """The line of a launch earlier in the kernel's own function that loads the module the
    kernel joins (interleaved definition and launch), if any."""
    if kernel.module is not None:
        return None
    facts = program.modules[module]
    for index, launch in enumerate(facts.launches):
        if launch.function != kernel.function or launch.order > kernel.order or not launch.kind.startswith("launch"):
            continue
        if exclusive(launch.path, kernel.path):
            continue
        if module in program.launch_modules(module, index):
            return launch.span[0]
    return None


class _NoFunction:
    params: tuple[str, ...] = ()
    loop_tables: tuple[str, ...] = ()


_NO_FN = _NoFunction()


def _is_definition(program: Program, module: str, kernel: KernelFact, name: str) -> bool:
    function = program.function(FunctionRef(module, kernel.function))
    if function is None:
        return False
    return all(v.kind in ("kernel", "function") for v in function.locals.get(name, ())) and name in function.locals


_Function = ast.FunctionDef | ast.AsyncFunctionDef


def _runs_once(func: _Function) -> bool:
    """``main()`` and test functions run once per process / per test."""
    name = func.name
    if name in ("main", "setUp", "setUpClass", "setup_class", "setup_method", "setup_module"):
        return True
    return name.startswith("test_") or (name.startswith("test") and isinstance(func.parent, ast.ClassDef))


def _is_test_file(ctx: FileContext) -> bool:
    return is_test_path(ctx.project.path_in_project(ctx.path))


def _may_run_repeatedly(func: _Function, ctx: FileContext, depth: int) -> bool:
    """Can ``func`` run more than once per distinct purpose?

    Decided from its uses in this file: calls at module level run once per import (a
    module-level loop makes its kernels up front, which is fine), calls from ``main()``,
    tests or memoized functions are fine, calls from other functions are as repeated as
    those functions (followed a few levels). A function passed around or never used in
    this file is unknown: reported when public, not when private or in a test file.
    """
    if _runs_once(func) or is_memoized(func, ctx):
        return False
    if depth > 3:
        return True
    if not isinstance(func.parent, (ast.Module, ast.ClassDef)):
        # nested helper: as repeated as its enclosing function
        outer = syntax.enclosing_functions(func)
        return _may_run_repeatedly(outer[-1], ctx, depth + 1) if outer else False
    uses = _uses_in_file(func, ctx)
    quiet_unknown = func.name.startswith("_") and not func.name.startswith("__") or _is_test_file(ctx)
    if not uses:
        return not quiet_unknown
    for use in uses:
        call = use.parent
        if not (isinstance(call, ast.Call) and call.func is use):
            if _is_test_file(ctx):
                continue  # registered with a test harness
            return True  # passed around: may be called anywhere
        callers = syntax.enclosing_functions(call)
        if not callers:
            if depth > 0 and _in_loop(call):
                return True  # a caller of the factory, called over and over by the script
            continue  # module level: once per import (a loop there makes its kernels up front)
        if any(_runs_once(f) or is_memoized(f, ctx) for f in callers):
            continue
        if _may_run_repeatedly(callers[-1], ctx, depth + 1):
            return True
    return False


_LOOPS = (ast.For, ast.AsyncFor, ast.While, *syntax.COMPREHENSION_TYPES)


def _in_loop(node: ast.AST) -> bool:
    # Any loop around the call, across function, class and lambda boundaries too.
    return any(isinstance(a, _LOOPS) for a in syntax.ancestors(node))


def _uses_in_file(func: _Function, ctx: FileContext) -> list[ast.expr]:
    cache = ctx.state.setdefault("WCT003", {})
    key = ("uses", id(func))
    if key in cache:
        return cache[key]
    index = cache.get("index")
    if index is None:
        index = {}
        for node in syntax.nodes_of_class(ctx.tree, (ast.Name, ast.Attribute)):
            if not isinstance(node.ctx, ast.Load):
                continue  # assignment targets and ``del`` are not uses
            label = node.id if isinstance(node, ast.Name) else "." + node.attr
            index.setdefault(label, []).append(node)
        cache["index"] = index
    uses: list[ast.expr] = []
    if isinstance(func.parent, ast.ClassDef):
        uses.extend(index.get("." + func.name, []))
    else:
        for node in index.get(func.name, []):
            _scope, bindings = syntax.lookup(node)
            if any(b is func for b in bindings):
                uses.append(node)
    cache[key] = uses
    return uses


def _loaded_names(node: ast.AST) -> list[ast.Name]:
    return [n for n in syntax.nodes_of_class(node, ast.Name) if isinstance(n.ctx, ast.Load)]


def _captures(kernel: _Function, chain: list[_Function]) -> list[str]:
    """Names the kernel (annotations, decorator, body) takes from the enclosing functions."""
    scopes = {id(f) for f in chain}
    found: dict[str, None] = {}
    parts: list[ast.AST] = [kernel.args, *kernel.body, *kernel.decorator_list]
    if kernel.returns is not None:
        parts.append(kernel.returns)
    for part in parts:
        for name in _loaded_names(part):
            scope, bindings = syntax.lookup(name)
            if bindings and id(scope) in scopes:
                found.setdefault(name.id)
    return list(found)


def _is_generator(func: _Function) -> bool:
    """A ``yield`` in the function's own body (nested functions and lambdas excluded)."""
    stack: list[ast.AST] = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                stack.append(child)
    return False


def _memoize_fix(dec: KernelDecorator, factory: _Function, ctx: FileContext):
    """``@functools.cache`` above a plain factory that returns the kernel it makes."""
    if isinstance(factory.parent, ast.ClassDef) or _is_generator(factory):
        return None
    args = factory.args
    if args.vararg or args.kwarg:
        pass  # still hashable if the values are; the fix is unsafe anyway
    if not _returns_name(factory, dec.funcdef.name):
        return None
    if _has_side_effect_calls(factory, ctx):
        return None
    decorator_name = _functools_cache_name(ctx)
    edits = []
    if decorator_name is None:
        decorator_name = "functools.cache"
        edits.append(ctx.insert_at(_import_line(ctx), 0, "import functools\n"))
    line0 = (factory.decorator_list[0].lineno if factory.decorator_list else factory.lineno) - 1
    indent = ctx.line_indent(line0)
    edits.append(ctx.insert_at(line0, 0, f"{indent}@{decorator_name}\n"))
    return ctx.fix(f"Memoize `{factory.name}` with @{decorator_name}", *edits, safe=False)


def _returns_name(func: _Function, name: str) -> bool:
    for ret in syntax.nodes_of_class(func, ast.Return):
        if syntax.scope_of(ret) is not func or ret.value is None:
            continue
        for n in _loaded_names(ret.value):
            if n.id == name:
                return True
    return False


def _has_side_effect_calls(func: _Function, ctx: FileContext) -> bool:
    """Launches in the factory would be skipped on cached calls: no fix then."""
    for call in syntax.nodes_of_class(func, ast.Call):
        name = ctx.call_name(call) or ""
        if name.startswith("warp.launch") or name in ("warp.force_load", "warp.load_module", "warp.synchronize"):
            return True
    return False


def _functools_cache_name(ctx: FileContext) -> str | None:
    for stmt in ctx.tree.body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name == "functools":
                    return f"{alias.asname or 'functools'}.cache"
        elif isinstance(stmt, ast.ImportFrom) and stmt.module == "functools" and not stmt.level:
            for alias in stmt.names:
                if alias.name == "cache":
                    return alias.asname or "cache"
    return None


def _import_line(ctx: FileContext) -> int:
    """0-based line to insert ``import functools``: before the first import, after a
    module docstring and ``from __future__`` imports."""
    for stmt in ctx.tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
            continue
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            return stmt.lineno - 1
    line = 0
    for stmt in ctx.tree.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
            line = stmt.end_lineno
            continue
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
            line = stmt.end_lineno
            continue
        break
    return line
