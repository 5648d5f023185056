"""WCT009 block-dim-spread."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from warp_ct.analyzer.facts import DEVICE_WORDS, LaunchFact, OptionFact, Value, exclusive
from warp_ct.analyzer.model import Severity
from warp_ct.analyzer.program import UNRESOLVED, FunctionRef, KernelRef, Program, module_key
from warp_ct.analyzer.query import QueryContext, where
from warp_ct.analyzer.rules.base import Rule
from warp_ct.analyzer.rules.wct008_cache_destroyed import is_test_harness

DEFAULT_BLOCK_DIM = 256


@dataclass
class _Launch:
    module: str  # the Python module of the launch
    launch: LaunchFact
    kernel: str
    values: tuple[Any, ...]  # block_dims it can launch at; () when chosen at run time
    varies: bool = False  # run time, from a parameter or a loop variable
    chosen: Value | None = None  # the run-time block_dim expression (``values == ()``)


@dataclass
class _WarpModule:
    key: str
    label: str
    kernels: int
    default: int
    launches: list[_Launch] = field(default_factory=list)


class BlockDimSpread(Rule):
    code = "WCT009"
    name = "block-dim-spread"
    severity = Severity.WARNING
    summary = "One Warp module launched at several block_dims is compiled once per block_dim"
    docs = '''
    ## What it does
    Looks at every `wp.launch` / `wp.launch_tiled` of the program and the Warp module
    each launched kernel belongs to (the module of the file that defines it, a named
    `module="pkg.x"`, or a unique module), with block_dims followed through constants,
    parameters and their call sites, tuples and stage tables. It flags:

    - a module with several kernels launched at different `block_dim` values (an omitted
      `block_dim` means the module's default, 256);
    - a `block_dim` chosen at run time (a parameter or loop variable) for a kernel that
      shares its module with other kernels;
    - as information, a `block_dim` computed at run time (`get_tuned_block_dim(name,
      device)`, `self.block_dim`, an environment setting) for a kernel whose module is
      also launched at another block_dim (a constant, the default, or another run-time
      expression); one expression for every launch of the module is one block_dim and
      stays silent;
    - `wp.get_suggested_block_size(kernel)` when the same module is then launched at a
      block_dim other than its default.

    Launches on `device="cpu"` are ignored: on the CPU the block_dim is always 1.

    ## Why it costs compile time
    The block_dim is part of a module's build: every distinct block_dim a module is
    launched at compiles the whole module again, all of its kernels, not just the one
    launched. `get_suggested_block_size` has to load the module to ask the driver, and
    it loads it at the module's default block_dim (256); launching afterwards at the
    suggested size (or any other) is a second full build.

    ## Example
    ```python
    import warp as wp

    @wp.kernel
    def transpose(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
        i, j = wp.tid()
        b[j, i] = a[i, j]

    @wp.kernel
    def scale(a: wp.array2d(dtype=float), s: float):
        i, j = wp.tid()
        a[i, j] = a[i, j] * s

    def step(a, b):
        wp.launch(scale, dim=a.shape, inputs=[a, 2.0])
        wp.launch(transpose, dim=a.shape, inputs=[a, b], block_dim=64)  # WCT009

    def tuned(a):
        block, _ = wp.get_suggested_block_size(scale)  # WCT009
        wp.launch(scale, dim=a.shape, inputs=[a, 0.5], block_dim=block)  # WCT009
    ```

    ## Use instead
    Keep one block_dim per module: put kernels that need another block_dim in a module
    of their own (`module="unique"` or a separate file), and set a module's default with
    `wp.set_module_options({"block_dim": ...})` instead of passing a different value per
    launch:
    ```python
    import warp as wp

    @wp.kernel(module="unique")
    def transpose(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
        i, j = wp.tid()
        b[j, i] = a[i, j]

    @wp.kernel
    def scale(a: wp.array2d(dtype=float), s: float):
        i, j = wp.tid()
        a[i, j] = a[i, j] * s

    def step(a, b):
        wp.launch(scale, dim=a.shape, inputs=[a, 2.0])
        wp.launch(transpose, dim=a.shape, inputs=[a, b], block_dim=64)
    ```

    ## When not to apply
    Two named modules of one file (`module="pkg.sum"`, `module="pkg.max"`) are two
    modules: each may have its own block_dim. A block_dim that depends on the device
    (`256 if "cuda" in device else 1`) is one value per device. Sweeping block_dims on
    purpose (a benchmark) builds the module once per value by
    design; in test code (`test_*.py`, files under `tests/`) findings are information
    only, since tests exercise block_dims on purpose; a module with a single kernel is not reported, since every build is needed
    anyway. Nor is a kernel that its factory makes anew, with other captured values, for
    each block_dim picked at run time (a benchmark's configurations): every definition is
    a new build whatever its block_dim. CPU launches never matter:
    ```python
    import warp as wp

    @wp.kernel
    def scale(a: wp.array(dtype=float), s: float):
        i = wp.tid()
        a[i] = a[i] * s

    def sweep(a):
        for block in (64, 128, 256):
            wp.launch(scale, dim=a.shape, inputs=[a, 1.0], block_dim=block)

    def on_cpu(a):
        wp.launch(scale, dim=a.shape, inputs=[a, 1.0], block_dim=32, device="cpu")
    ```
    '''

    def query(self, ctx: QueryContext) -> None:
        modules = _launches_by_module(ctx.program)
        severity = Severity.INFO if is_test_harness(ctx.project.path_in_project(ctx.path)) else None  # tests exercise block_dims on purpose
        for group in _groups_launched_from(ctx.program, modules).get(ctx.module_name, ()):
            if group.kernels < 2:
                continue
            _check_spread(group, ctx, severity)
        for index, launch in enumerate(ctx.facts.launches):
            if launch.kind == "block_size_query" and not _on_cpu(launch.device):
                _check_query(ctx, index, launch, modules, severity)


def _groups_launched_from(program: Program, modules: dict[str, _WarpModule]) -> dict[str, list[_WarpModule]]:
    """Python module -> the Warp module groups with a launch in it (a file reports only
    its own launches: the others need not be checked file after file)."""
    def index() -> dict[str, list[_WarpModule]]:
        out: dict[str, list[_WarpModule]] = {}
        for group in modules.values():
            for python_module in dict.fromkeys(launch.module for launch in group.launches):
                out.setdefault(python_module, []).append(group)
        return out

    return program.memo("WCT009.groups_by_file", index)


def _launches_by_module(program: Program) -> dict[str, _WarpModule]:
    """Every GPU-capable launch of the program, grouped by the Warp module it builds."""
    return program.memo("WCT009.launches", lambda: _group_launches(program))


def _group_launches(program: Program) -> dict[str, _WarpModule]:
    kernel_counts: dict[str, int] = {}
    for ref, kernel in program.kernels():
        if kernel.decorator != "kernel":
            continue
        for module in program.kernel_modules(ref):
            if module is not UNRESOLVED:
                kernel_counts[module_key(module)] = kernel_counts.get(module_key(module), 0) + 1
    defaults = _module_defaults(program)
    groups: dict[str, _WarpModule] = {}
    for module, facts in program.modules.items():
        for index, launch in enumerate(facts.launches):
            if launch.kind not in ("launch", "launch_tiled") or _on_cpu(launch.device):
                continue
            kernels = [k for k in program.launch_kernels(module, index) if isinstance(k, KernelRef)]
            if not kernels or len(kernels) != len(program.launch_kernels(module, index)):
                continue
            values, varies = _block_dims(program, module, launch)
            for ref in kernels:
                if values == () and _remade_with_new_values(program, ref):
                    continue  # block_dim and kernel chosen together (a benchmark's configurations)
                for target in program.kernel_modules(ref):
                    if target is UNRESOLVED or isinstance(target, tuple):
                        continue  # unknown, or a unique module: one kernel, each build needed
                    key = module_key(target)
                    group = groups.get(key)
                    if group is None:
                        kernels, default = kernel_counts.get(key, 0), defaults.get(key, DEFAULT_BLOCK_DIM)
                        if program.is_outside(ref.module):  # a module the project imports: its own file says
                            outside = _outside_module(program, ref.module, key)
                            if outside is None:
                                continue  # its default block_dim is not known
                            kernels, default = kernels + outside[0], outside[1] if outside[1] is not None else default
                        group = groups[key] = _WarpModule(key, f"`{key}`", kernels, default)
                    resolved = values if values is not None else (group.default,)
                    chosen = _per_device(launch.block_dim) if values == () else None  # type: ignore[arg-type]
                    group.launches.append(_Launch(module, launch, program.kernel(ref).name, resolved, varies, chosen))
    return groups


def _outside_module(program: Program, module: str, key: str) -> tuple[int, int | None] | None:
    """(its kernels in Warp module ``key``, the default block_dim it sets for ``key`` or None)
    of a module read from outside the project; None when an option change there may set
    the default to something not known. The project's own kernels and options in ``key``
    are counted as for any module; what other files outside the project add is not known
    (fewer kernels: a spread may go untold, never told wrongly)."""
    def read() -> tuple[int, int | None] | None:
        facts = program.defining_facts(module)
        # Its packages' ``__init__`` run first on every import of it: one that may set a
        # block_dim (for this module or one not known) leaves the default unknown.
        parts = module.split(".")
        for cut in range(1, len(parts)):
            package = program.outside_facts(".".join(parts[:cut]))
            if package is not None and any(_may_set_block_dim(option) for option in package.options):
                return None
        kernels = sum(
            1 for index, kernel in enumerate(facts.kernels)
            if kernel.decorator == "kernel" and key in map(module_key, program.kernel_modules(KernelRef(module, index)))
        )  # fmt: skip
        default = None
        for option in facts.options:
            if not _may_set_block_dim(option):
                continue
            value = option.options.get("block_dim")
            if option.target is not None or option.function is not None or value is None or value.kind != "const" \
                    or not isinstance(value.data, int) or isinstance(value.data, bool):  # fmt: skip
                return None  # another module's, set when a function runs, or not a literal
            default = value.data
        return kernels, default

    return program.memo(f"WCT009.outside:{module}:{key}", read)


def _may_set_block_dim(option: OptionFact) -> bool:
    """A ``set_module_options`` that may set a block_dim (named, or in a dict not written out)."""
    return option.kind == "module_options" and ("block_dim" in option.options or "*" in option.options)


def _remade_with_new_values(program: Program, ref: KernelRef) -> bool:
    """A kernel its factory defines again with other captured values (a tile size per
    benchmark configuration): each definition builds its module anew, so a block_dim picked
    at run time along with those values costs no build more."""
    kernel = program.kernel(ref)
    if kernel.function is None:
        return False
    # A factory that makes several kernels of one module (an optimizer's step and its
    # timestep counter) makes them as a set, launched together: one at a fixed block_dim
    # and one at the configuration's is two builds for every configuration.
    if _kernels_per_factory(program).get((ref.module, kernel.function), 0) > 1:
        return False
    factory = FunctionRef(ref.module, kernel.function)
    return any(program.capture_varies(factory, name) for name in kernel.captures)


def _kernels_per_factory(program: Program) -> dict[tuple[str, str], int]:
    """(Python module, function) -> how many kernels the function defines."""
    def count() -> dict[tuple[str, str], int]:
        out: dict[tuple[str, str], int] = {}
        for ref, kernel in program.kernels():
            if kernel.function is not None and kernel.decorator == "kernel":
                out[(ref.module, kernel.function)] = out.get((ref.module, kernel.function), 0) + 1
        return out

    return program.memo("WCT009.kernels_per_factory", count)


def _module_defaults(program: Program) -> dict[str, int]:
    """``wp.set_module_options({"block_dim": N})`` per module (the file's own by default)."""
    out: dict[str, int] = {}
    for module, facts in program.modules.items():
        for option in facts.options:
            if option.kind != "module_options" or "block_dim" not in option.options:
                continue
            values = program.resolve(module, option.function, option.options["block_dim"])
            targets = program.option_target(module, option)
            if len(values) == 1 and isinstance(values[0], int):
                for target in targets:
                    if isinstance(target, str):
                        out[target] = values[0]
    return out


def _block_dims(program: Program, module: str, launch: LaunchFact) -> tuple[tuple[Any, ...] | None, bool]:
    """(block_dims this launch can use, whether a run-time one varies); None: the module default."""
    value = launch.block_dim
    if value is None or value == Value("const", None):
        return None, False
    value = _per_device(value)
    resolved = program.resolve_on_gpu(module, launch.function, value)
    if any(v is UNRESOLVED for v in resolved) or not all(isinstance(v, int) and not isinstance(v, bool) for v in resolved):
        return (), _varies(value)
    return tuple(dict.fromkeys(resolved)), False


def _per_device(value: Value) -> Value:
    """``X if "cuda" in device else 1``: one value per device; on the GPU it is X (the CPU
    always uses 1 whatever is passed)."""
    if value.kind == "choice" and any(word in str(value.data).lower() for word in DEVICE_WORDS):
        for branch in value.items:
            if branch != Value("const", 1):
                return _per_device(branch)
    if value.kind == "call" and value.data in ("int",) and len(value.items) == 1:
        inner = _per_device(value.items[0])
        return Value("call", value.data, (inner,))
    return value


def _varies(value: Value) -> bool:
    """A run-time block_dim read straight from a parameter or a loop variable (``cfg.x`` is
    usually fixed for the run; a name assigned in branches is a choice, not a sweep)."""
    if value.kind == "param":
        return True
    if value.kind == "sub" and value.items and value.items[0].kind == "elem":
        return True
    return value.kind == "elem"


def _check_spread(group: _WarpModule, ctx: QueryContext, severity: Severity | None) -> None:
    first: tuple[_Launch, Any] | None = None
    for launch in group.launches:
        if launch.values:
            first = (launch, launch.values[0])
            break
    seen = {first[1]} if first else set()
    reported: set[tuple[int, int]] = set()
    # A kernel launched at a run-time block_dim from several places of this file (a
    # backward pass that recomputes the forward's statistics) is one problem, with one
    # fix at the kernel: reported at its first launch, naming the others.
    varying: dict[str, list[_Launch]] = {}
    for launch in group.launches:
        if not launch.values and launch.varies and launch.module == ctx.module_name:
            varying.setdefault(launch.kernel, []).append(launch)
    for launch in group.launches:
        here = launch.module == ctx.module_name
        if not launch.values:
            if not here:
                continue
            if not launch.varies:
                if launch.launch.span[:2] not in reported:  # one launch of a kernel picked from several
                    reported.add(launch.launch.span[:2])
                    _check_chosen(group, launch, ctx)
                continue
            same_kernel = varying.get(launch.kernel, [])
            if same_kernel and same_kernel[0] is not launch:
                continue
            others = ""
            if first is not None:
                others = (f" and other kernels of it at block_dim {first[1]} "
                          f"({where(first[0].module, first[0].launch.span, ctx.module_name)})")  # fmt: skip
            also = ""
            if len(same_kernel) > 1:
                lines = ", ".join(str(other.launch.span[0]) for other in same_kernel[1:])
                also = f" (here and at line{'s' if len(same_kernel) > 2 else ''} {lines})"
            ctx.report(
                launch.launch.span,
                f"block_dim is chosen at run time for `{launch.kernel}`{also}, which shares module {group.label} "
                f"with {group.kernels - 1} other kernel(s){others}: every distinct value compiles the whole module "
                'again; give this kernel a module of its own (module="unique")',
                severity=Severity.INFO,
            )
            continue
        new = [v for v in launch.values if v not in seen]
        seen.update(launch.values)
        if not new or first is None or not here:
            continue
        key = launch.launch.span[:2]
        if key in reported:
            continue
        reported.add(key)
        if launch is first[0]:
            listed = ", ".join(str(v) for v in launch.values)
            detail = f"at block_dims {listed} here"
        else:
            detail = (f"at block_dim {', '.join(str(v) for v in new)} here and at {first[1]} for `{first[0].kernel}` "
                      f"({where(first[0].module, first[0].launch.span, ctx.module_name)})")  # fmt: skip
        ctx.report(
            launch.launch.span,
            f"module {group.label} is launched {detail}: each block_dim compiles the whole module again, all "
            f"{group.kernels} kernels; give kernels that need another block_dim a module of their own",
            severity=severity,
        )


def _check_chosen(group: _WarpModule, launch: _Launch, ctx: QueryContext) -> None:
    """A block_dim computed at run time (``get_tuned_block_dim("gather", device)``,
    ``self.block_dim``) for a kernel whose module is also launched at another block_dim
    (a constant, the default, or another run-time expression): a second build of the whole
    module whenever the two differ. Info: the values may coincide on a device. The same
    expression for every launch of the module is one block_dim: nothing to say."""
    others = [o for o in group.launches if o.values or (o.chosen is not None and o.chosen != launch.chosen)]
    if not others:
        return
    # Cite a launch that can run with this one: ``if tiled: launch_tiled(...) else:
    # launch(...)`` alternates per call, and another call may take the other arm.
    other = next((o for o in others if not _alternatives(o, launch)), others[0])
    if other.values:
        theirs = f"block_dim {other.values[0]} for `{other.kernel}`"
    else:
        theirs = f"another run-time block_dim for `{other.kernel}`"
    text = _block_dim_text(ctx, launch) or "a run-time value"
    ctx.report(
        launch.launch.span,
        f"block_dim is `{text}`, chosen at run time, for `{launch.kernel}`, which shares module {group.label} with "
        f"{group.kernels - 1} other kernel(s), launched at {theirs} "
        f"({where(other.module, other.launch.span, ctx.module_name)}): each distinct block_dim compiles the whole "
        'module again, so a value that differs from theirs is a second build; give this kernel a module of its own '
        '(module="unique") or launch the module at one block_dim',
        severity=Severity.INFO,
    )


def _alternatives(one: _Launch, other: _Launch) -> bool:
    """Two launches on different arms of one branch of one function."""
    a, b = one.launch, other.launch
    return one.module == other.module and a.function == b.function and exclusive(a.path, b.path)


def _check_query(ctx: QueryContext, index: int, query: LaunchFact, modules: dict[str, _WarpModule],
                 severity: Severity | None) -> None:  # fmt: skip
    program = ctx.program
    for ref in program.launch_kernels(ctx.module_name, index):
        if not isinstance(ref, KernelRef):
            continue
        for target in program.kernel_modules(ref):
            if target is UNRESOLVED or isinstance(target, tuple):
                continue
            group = modules.get(module_key(target))
            if group is None:
                continue
            for launch in group.launches:
                if launch.values == (group.default,) or (not launch.values and not launch.launch.block_dim):
                    continue
                shown = _block_dim_text(ctx, launch) if launch.module == ctx.module_name else ""
                shown = shown or ", ".join(str(v) for v in launch.values) or "a run-time value"
                ctx.report(
                    query.span,
                    f"`get_suggested_block_size` loads module {group.label} at its default block_dim {group.default} "
                    f"to ask the driver; the launch at {where(launch.module, launch.launch.span, ctx.module_name)} "
                    f"uses block_dim={shown}, a second build of the whole module; set the module's default "
                    "block_dim to the value you launch with, or keep the suggested size from an earlier run",
                    severity=severity,
                )
                return


def _block_dim_text(ctx: QueryContext, launch: _Launch) -> str:
    """The ``block_dim=...`` argument text of a launch of this file (for the message)."""
    text = ctx.source_of(launch.launch.span)
    marker = text.find("block_dim=")
    if marker < 0:
        return ""
    rest = text[marker + len("block_dim="):]
    depth, end = 0, 0
    for end, char in enumerate(rest):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif char == "," and depth == 0:
            break
    else:
        end = len(rest)
    return rest[:end].strip()


def _on_cpu(device: Value | None) -> bool:
    return device is not None and device.kind == "const" and isinstance(device.data, str) and device.data.startswith("cpu")
