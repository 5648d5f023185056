"""WCT002 unique-stable-kernel."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from warp_ct.analyzer import syntax
from warp_ct.analyzer.context import FileContext, KernelDecorator
from warp_ct.analyzer.facts import FileFacts, KernelFact, const
from warp_ct.analyzer.flows import callee_label, flow_index, is_warp_code
from warp_ct.analyzer.program import UNIQUE, Freq, FunctionRef, KernelRef, Program
from warp_ct.analyzer.model import Applicability, Range, Severity, TextEdit
from warp_ct.analyzer.rules.base import Rule

if TYPE_CHECKING:
    from warp_ct.analyzer.project import FileSummary, Project


# Per-kernel options that only take effect in a module of the kernel's own.
_NEEDS_OWN_MODULE = ("module_options", "enable_backward")


class UniqueStableKernel(Rule):
    code = "WCT002"
    name = "unique-stable-kernel"
    severity = Severity.INFO
    summary = '`module="unique"` on a kernel defined once at module scope gives it a module (and a build) of its own'
    fix_applicability = Applicability.UNSAFE
    docs = '''
    ## What it does
    Flags `@wp.kernel(module="unique")` on kernels defined once at module scope when the
    same function launches them together, at the same block size, and the file has no
    other kernels (so a shared module would build nothing that is not used anyway).

    ## Why it costs compile time
    Warp compiles modules, not kernels. A `module="unique"` kernel gets a module of its
    own, so kernels that are always used together each pay a full module build (code
    generation, a compiler invocation, a load) instead of sharing one. `module="unique"`
    is meant for kernels created per call with different captured values, or kernels
    that must be kept apart (different options or block sizes); a set of module-scope
    kernels launched together gains nothing from it.

    ## Example
    ```python
    import warp as wp

    @wp.kernel(module="unique")  # WCT002
    def integrate(x: wp.array(dtype=float), v: wp.array(dtype=float), dt: float):
        i = wp.tid()
        x[i] = x[i] + v[i] * dt

    @wp.kernel(module="unique")  # WCT002
    def damp(v: wp.array(dtype=float), k: float):
        i = wp.tid()
        v[i] = v[i] * k

    def step(x, v, dt):
        wp.launch(damp, dim=v.shape, inputs=[v, 0.99])
        wp.launch(integrate, dim=x.shape, inputs=[x, v, dt])
    ```

    ## Use instead
    ```python
    import warp as wp

    @wp.kernel
    def integrate(x: wp.array(dtype=float), v: wp.array(dtype=float), dt: float):
        i = wp.tid()
        x[i] = x[i] + v[i] * dt

    @wp.kernel
    def damp(v: wp.array(dtype=float), k: float):
        i = wp.tid()
        v[i] = v[i] * k

    def step(x, v, dt):
        wp.launch(damp, dim=v.shape, inputs=[v, 0.99])
        wp.launch(integrate, dim=x.shape, inputs=[x, v, dt])
    ```

    ## When not to apply
    Keep `module="unique"` where it keeps kernels apart on purpose: a kernel with options
    of its own, a kernel launched at a different block size than its neighbours (each
    block size is a separate build of the whole module), kernels of a large library file
    of which a program uses only a few (separate modules then build only what is used),
    and kernels created per call by a factory:
    ```python
    import warp as wp

    @wp.kernel(module="unique", enable_backward=False)
    def forward_only(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = 2.0 * x[i]

    @wp.kernel(module="unique")
    def tiled_sum(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = 3.0 * x[i]

    @wp.kernel(module="unique")
    def rarely_used(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = 0.0

    def run(x):
        wp.launch(forward_only, dim=x.shape, inputs=[x])
        wp.launch_tiled(tiled_sum, dim=1, inputs=[x], block_dim=64)

    def make_scale(s: float):
        @wp.kernel(module="unique")
        def scale(x: wp.array(dtype=float)):
            i = wp.tid()
            x[i] = s * x[i]

        return scale
    ```
    The fix (dropping `module="unique"`) is unsafe: the kernel then joins the file's
    module and takes that module's options (`wp.set_module_options` of the file), and
    editing any kernel of the file rebuilds them all.
    '''

    def needs_tree(self, summary: "FileSummary", project: "Project") -> bool:
        if _default_unique_factories(project.program(), project.facts(summary)):
            return True
        # Two kernels launched together, one of them ``module="unique"``, defined once (at
        # module level), and one flow launching all of those: what the tree check reports.
        facts = project.facts(summary)
        stable = {k.name: k for k in facts.kernels if k.function is None and k.decorator == "kernel"}
        if len(stable) < 2 or not any(k.module == const(UNIQUE) for k in stable.values()):
            return False
        launched: dict[str | None, set[str]] = {}
        for launch in facts.launches:
            if launch.kind.startswith("launch") and isinstance(launch.kernel.data, str):
                launched.setdefault(launch.function, set()).add(launch.kernel.data.rsplit(".", 1)[-1])
        return any(stable.keys() <= names for names in launched.values()) or bool(
            _launched_together_elsewhere(project.program(), facts))

    def leave_module(self, node: ast.Module, ctx: FileContext) -> None:
        program = ctx.program
        for factory, param, kernels, variants in _default_unique_factories(program, ctx.facts):
            fact = program.function(factory)
            assert fact is not None
            names = ", ".join(f"`{k.name}`" for k in kernels[:3])
            if variants is None:
                launched = _launched_unique_kernels(program, factory.module)
                made = (f"gets a module of its own: this file's kernels launch as {len(launched)} one-kernel modules, "
                        "each a separate build, although nothing they capture differs between calls")  # fmt: skip
            else:
                made = (f"gets a module of its own, and it makes its variants up front ({variants}): one build per "
                        "variant, where the file's shared module, defined before its first launch, builds them all "
                        "at once")  # fmt: skip
            message = (
                f'`{param}` defaults to "unique" in `{fact.qualname}()` and no caller passes it, so every kernel it '
                f"makes ({names}) {made}. Default `{param}` to None (the file's shared module, one build) and pass "
                '"unique" where a caller needs a variant of its own.'
            )
            span = fact.default_spans[param]
            fix = ctx.fix(f"Default `{param}` to None", TextEdit(ctx._range(*span), "None"), safe=False)
            ctx.report(ctx._range(*span), message, fixes=[fix], severity=Severity.WARNING)

    def visit_module(self, node: ast.Module, ctx: FileContext) -> None:
        # The flow index's defs instead of ``ctx.kernel_decorators()``: no second walk of the tree.
        index = flow_index(ctx)
        kernels = (ctx.kernel_decorator(func) for func in index.functions if func.decorator_list)
        stable = {dec.funcdef.name: dec for dec in kernels if dec is not None and _is_stable(dec.funcdef)}
        if len(stable) < 2 or not any(dec.is_unique for dec in stable.values()):
            return
        reported: set[str] = set()
        for owner, items in index.flows:
            if isinstance(owner, syntax.FUNCTION_TYPES) and is_warp_code(owner, ctx):
                continue
            groups = _launch_groups(items, stable, ctx)
            for block_dim, names in groups.items():
                if len(names) < 2:
                    continue
                # A shared module must not build kernels this flow never uses.
                if set(stable) - set(names):
                    continue
                where = f"`{owner.name}()`" if isinstance(owner, syntax.FUNCTION_TYPES) else "this file"
                _report_group(ctx, stable, names, reported, f"{where} launches it together with {{others}} (same block size)")
        # One launch in another file that runs them all: a table of (kernel, weight) rows
        # looped in a trainer, ``KERNELS[name]`` picked per call.
        for (module, function, line), names in _launched_together_elsewhere(ctx.program, ctx.facts).items():
            if set(stable) - set(names):
                continue
            site = f"line {line}" if module == ctx.module_name else f"`{module}` line {line}"
            if function.startswith("<"):  # the module body, its ``__main__`` block
                together = f"one launch ({site}) runs it with {{others}}"
            else:
                together = f"`{function}()` ({site}) launches it with {{others}} from one launch"
            _report_group(ctx, stable, sorted(names), reported, together)


def _report_group(ctx: FileContext, stable: dict[str, KernelDecorator], names: list[str], reported: set[str],
                  together: str) -> None:
    """Report each ``module="unique"`` kernel of a group launched together (``together``
    says how, with ``{others}`` for the rest of the group), once per kernel."""
    for name in names:
        dec = stable[name]
        if name in reported or not dec.is_unique or dec.call is None:
            continue
        if any(key in dec.keywords for key in _NEEDS_OWN_MODULE):
            continue
        reported.add(name)
        others = ", ".join(f"`{n}`" for n in names if n != name)
        message = (
            f'`module="unique"` gives `{name}` a module of its own, but {together.format(others=others)}: each module '
            "is a separate build. Without `module=\"unique\"` they share this file's module and build once."
        )
        fix = _drop_unique_fix(dec, ctx)
        ctx.report(dec.decorator, message, fixes=[fix] if fix else [])


def _launched_together_elsewhere(program: Program, facts: FileFacts) -> dict[tuple[str, str, int], set[str]]:
    """(launching module, function, line) -> the names of this file's module-scope
    ``module="unique"`` kernels one launch in another file can run (two or more)."""
    return program.memo("WCT002.together", lambda: _all_launched_together(program)).get(facts.module, {})


def _all_launched_together(program: Program) -> dict[str, dict[tuple[str, str, int], set[str]]]:
    """``_launched_together_elsewhere`` for every module, from one scan of the launches."""
    unique = {ref for ref, k in program.kernels()
              if k.function is None and k.decorator == "kernel" and k.module == const(UNIQUE)}  # fmt: skip
    found: dict[str, dict[tuple[str, str, int], set[str]]] = {}
    if len(unique) < 2:
        return found
    for module, launch_facts in program.modules.items():
        for index, launch in enumerate(launch_facts.launches):
            if not launch.kind.startswith("launch"):
                continue
            by_module: dict[str, set[str]] = {}
            for ref in program.launch_kernels(module, index):
                # One launch that runs several kernels picks them from a table (``WINDOWS[name]``,
                # ``for kernel, w in TERMS``), in the kernels' own file or another: the tree
                # check reads launches of plain names only.
                if isinstance(ref, KernelRef) and ref in unique:
                    by_module.setdefault(ref.module, set()).add(program.kernel(ref).name)
            for kernel_module, names in by_module.items():
                if len(names) >= 2:
                    site = (module, launch.function or "<module>", launch.span[0])
                    found.setdefault(kernel_module, {}).setdefault(site, set()).update(names)
    return found


def _default_unique_factories(program: Program, facts: FileFacts) -> list[tuple[FunctionRef, str, list[KernelFact], str | None]]:
    """Factories of this file whose ``module`` parameter (passed to ``@wp.kernel(module=...)``)
    defaults to "unique" with no caller passing it, when at least two one-kernel modules of
    this file are launched (one shared module would build them together): kernels that
    capture nothing that differs between calls, or variants that the factory makes up front
    (``[make_filter(axis) for axis in (0, 1, 2)]`` in ``__init__``, before any launch). The
    last item says why there are several variants (None: they are all the same kernel)."""
    found: dict[tuple[FunctionRef, str], list[KernelFact]] = {}
    variants: dict[tuple[FunctionRef, str], str] = {}
    several = False
    for kernel in facts.kernels:
        if kernel.function is None or kernel.module is None or kernel.module.kind != "param":
            continue
        if kernel.module_options is not None or kernel.enable_backward is not None:
            continue  # options of its own need a module of its own
        ref = FunctionRef(facts.module, kernel.function)
        param = kernel.module.data
        fact = program.function(ref)
        if fact is None or param not in fact.defaults or fact.defaults[param] != const(UNIQUE):
            continue
        if not program.default_decides(ref, param):
            continue
        if _captures_vary(program, ref, kernel):
            # Variants made per request, between launches, would each rebuild a shared
            # module: only a set made while setting up is one build there.
            frequency = program.frequency(ref)
            if frequency.freq not in (Freq.IMPORT, Freq.ONCE, Freq.UP_FRONT) or not _called_several_times(program, ref):
                continue
            variants[(ref, param)] = frequency.why
            several = True
        found.setdefault((ref, param), []).append(kernel)
    # Variants made up front are made to be launched (where the model cannot follow the
    # table they go into, as ``zip(filters, ranges)`` in another class's method).
    if not found or not several and len(_launched_unique_kernels(program, facts.module)) < 2:
        return []
    if _shared_module_churns(program, facts):
        return []  # the shared module is rebuilt per step already: unique modules keep out of it
    return [(ref, param, kernels, variants.get((ref, param))) for (ref, param), kernels in found.items()]


def _shared_module_churns(program: Program, facts: FileFacts) -> bool:
    """Some kernel joins this file's module from a function that runs many times (a per-step
    factory): that module is rebuilt again and again, and every kernel moved into it with it
    (a fresh-eyes cloth app measured the limiters worse there, 4.4 s against 3.2 s)."""
    for kernel in facts.kernels:
        if kernel.function is not None and kernel.module is None and kernel.decorator == "kernel":
            ref = FunctionRef(facts.module, kernel.function)
            if not program.memoized(ref) and program.frequency(ref).freq == Freq.HOT:
                return True
    return False


def _called_several_times(program: Program, ref: FunctionRef) -> bool:
    """Two call sites, or one in a loop or comprehension."""
    sites = program.callers(ref)
    return len(sites) >= 2 or any(call.loop_depth for _caller, _module, call in sites)


def _captures_vary(program: Program, ref: FunctionRef, kernel: KernelFact) -> bool:
    module_param = kernel.module.data if kernel.module else None
    return any(program.capture_varies(ref, name) for name in kernel.captures if name != module_param)


def _launched_unique_kernels(program: Program, module: str) -> set[KernelRef]:
    """Kernels of ``module`` that land in unique modules and that some launch reaches."""
    launched: set[KernelRef] = set()
    for launch_module, facts in program.modules.items():
        for index, _launch in enumerate(facts.launches):
            for ref in program.launch_kernels(launch_module, index):
                if isinstance(ref, KernelRef) and ref.module == module:
                    if any(isinstance(m, tuple) and m[0] == UNIQUE for m in program.kernel_modules(ref)):  # not warp.fem's
                        launched.add(ref)
    return launched


def _launch_groups(items: list[ast.AST], stable: dict[str, KernelDecorator], ctx: FileContext) -> dict[str, list[str]]:
    """Kernels of ``stable`` launched in a flow (its ``flow_index`` nodes), grouped by block_dim text."""
    groups: dict[str, list[str]] = {}
    for call in items:
        if not isinstance(call, ast.Call) or callee_label(call) not in ("launch", "launch_tiled"):
            continue
        name = ctx.call_name(call)
        if name not in ("warp.launch", "warp.launch_tiled"):
            continue
        kernel = ctx.keyword(call, "kernel", 0)
        if not isinstance(kernel, ast.Name) or kernel.id not in stable:
            continue
        _scope, bindings = syntax.lookup(kernel)
        if not bindings or bindings[-1] is not stable[kernel.id].funcdef:
            continue
        block_dim = ctx.keyword(call, "block_dim")
        key = ctx.source_of(block_dim) if block_dim is not None else "default"
        names = groups.setdefault(key, [])
        if kernel.id not in names:
            names.append(kernel.id)
    return groups


def _is_stable(func: ast.AST) -> bool:
    """Defined once per import: module scope (or a module-level class), no loop around it."""
    for current in syntax.ancestors(func):
        if isinstance(current, _NOT_ONCE):
            return False
    return True


# Runs per call or per iteration, so a def inside is not defined once.
_NOT_ONCE = (*syntax.FUNCTION_TYPES, ast.Lambda, ast.For, ast.AsyncFor, ast.While, *syntax.COMPREHENSION_TYPES)


def _drop_unique_fix(dec: KernelDecorator, ctx: FileContext):
    call = dec.call
    assert call is not None
    keyword = next((kw for kw in call.keywords if kw.arg == "module"), None)
    if keyword is None or getattr(keyword, "lineno", None) is None:
        return None
    args: list[ast.AST] = [*call.args, *call.keywords]
    args.sort(key=lambda a: (getattr(a, "lineno", 0) or 0, getattr(a, "col_offset", 0) or 0))
    if len(args) == 1:
        edit = ctx.replace_node(call, ctx.source_of(call.func))
    else:
        index = next(i for i, a in enumerate(args) if a is keyword)
        kw_range = ctx.node_range(keyword)
        if index + 1 < len(args):
            nxt = ctx.node_range(args[index + 1])
            edit = TextEdit(Range(kw_range.start, nxt.start), "")
        else:
            prev = ctx.node_range(args[index - 1])
            edit = TextEdit(Range(prev.end, kw_range.end), "")
    return ctx.fix('Remove `module="unique"`', edit, safe=False)
