"""WCT007 kernel-after-load."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, Iterator

from warp_ct.analyzer import syntax
from warp_ct.analyzer.context import FileContext
from warp_ct.analyzer.flows import (
    LOADER_LABELS,
    callee_label,
    describe,
    flow_index,
    is_warp_code,
    kernel_module,
    loaded_before,
    loads_in,
)
from warp_ct.analyzer.facts import FileFacts, KernelFact
from warp_ct.analyzer.model import Severity
from warp_ct.analyzer.program import (
    UNRESOLVED, Event, Freq, FunctionRef, KernelRef, LoadHistory, Program, innermost_call, is_own_module_key,
    module_key,
)
from warp_ct.analyzer.query import where
from warp_ct.analyzer.rules.base import Rule

if TYPE_CHECKING:
    from warp_ct.analyzer.project import FileSummary, Project


# What to do about a kernel a property makes on first use. A generic one joins its module
# again at its first launch (its `Any` types are made concrete then), so reading the
# properties early does not help it (measured: liblaf-apple's seven generic property kernels,
# all read up front, still built their module twice in one forward step).
_PROPERTY_ADVICE = 'Give the kernel its own module with `@wp.kernel(module="unique")`, or read every kernel property before the first launch.'
_GENERIC_PROPERTY_ADVICE = (
    'Give the kernel its own module with `@wp.kernel(module="unique")`: its `Any` parameters are made concrete '
    "at its first launch, so reading the properties early does not help."
)
# Definitions that join the file's Warp module (and mark it modified).
_JOINS_FILE_MODULE = ("kernel", "func", "func_native", "func_grad", "func_replay", "struct", "overload")


class KernelAfterLoad(Rule):
    code = "WCT007"
    name = "kernel-after-load"
    severity = Severity.WARNING
    summary = "A kernel, function or overload joins a Warp module after that module was launched or loaded"
    fix_applicability = None
    docs = '''
    ## What it does
    Flags a `@wp.kernel`, `@wp.func`, `@wp.struct`, `@wp.overload` or `wp.overload(...)`
    that adds to a Warp module after, earlier in the same function (or module body), a
    kernel of that module was launched or the module was loaded (`wp.launch`,
    `wp.launch_tiled`, `wp.get_suggested_block_size`, `wp.force_load`,
    `wp.load_module`).

    ## Why it costs compile time
    Every kernel, function and overload of a Python file belongs to one Warp module,
    which is compiled as a whole. Adding to it after it was built changes its hash: the
    next launch generates and compiles the whole module again, including every kernel
    that was already built.

    ## Example
    ```python
    import warp as wp

    @wp.kernel
    def init(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = 0.0

    x = wp.zeros(16, dtype=float)
    wp.launch(init, dim=16, inputs=[x])

    @wp.kernel
    def step(x: wp.array(dtype=float)):  # WCT007
        i = wp.tid()
        x[i] = x[i] + 1.0

    wp.launch(step, dim=16, inputs=[x])
    ```
    A generic kernel is instantiated at its first launch with the argument types it is
    given; when another launch loaded its module before, the instantiation rebuilds it:
    ```python
    from typing import Any

    import warp as wp

    @wp.kernel
    def clear(x: wp.array(dtype=float)):
        x[wp.tid()] = 0.0

    @wp.kernel
    def axpy(x: wp.array(dtype=Any), y: wp.array(dtype=Any), a: Any):  # WCT007
        i = wp.tid()
        y[i] = a * x[i] + y[i]

    def step(x, y):
        wp.launch(clear, dim=16, inputs=[y])
        wp.launch(axpy, dim=16, inputs=[x, y, 2.0])
    ```
    A kernel made by a property on first use (`functools.cached_property`) joins the
    file's module when the property is first read. Beside another kernel made that way,
    whichever is read after the other was launched rebuilds the module:
    ```python
    import functools

    import warp as wp

    class Spring:
        def __init__(self, x):
            self.x = x

        def fun(self):
            wp.launch(self.fun_kernel, dim=self.x.shape, inputs=[self.x])

        def grad(self):
            wp.launch(self.grad_kernel, dim=self.x.shape, inputs=[self.x])

        @functools.cached_property
        def fun_kernel(self):
            @wp.kernel
            def kernel(x: wp.array(dtype=float)):
                x[wp.tid()] = 0.5 * x[wp.tid()]

            return kernel

        @functools.cached_property
        def grad_kernel(self):
            @wp.kernel
            def kernel(x: wp.array(dtype=float)):  # WCT007
                x[wp.tid()] = 1.0

            return kernel

    spring = Spring(wp.zeros(16, dtype=float))
    spring.fun()
    spring.grad()
    ```

    ## Use instead
    Define everything first, then launch:
    ```python
    import warp as wp

    @wp.kernel
    def init(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = 0.0

    @wp.kernel
    def step(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = x[i] + 1.0

    x = wp.zeros(16, dtype=float)
    wp.launch(init, dim=16, inputs=[x])
    wp.launch(step, dim=16, inputs=[x])
    ```
    Declare a generic kernel's concrete types up front:
    ```python
    from typing import Any

    import warp as wp

    @wp.kernel
    def clear(x: wp.array(dtype=float)):
        x[wp.tid()] = 0.0

    @wp.kernel
    def axpy(x: wp.array(dtype=Any), y: wp.array(dtype=Any), a: Any):
        i = wp.tid()
        y[i] = a * x[i] + y[i]

    wp.overload(axpy, {"x": wp.array(dtype=float), "y": wp.array(dtype=float), "a": float})

    def step(x, y):
        wp.launch(clear, dim=16, inputs=[y])
        wp.launch(axpy, dim=16, inputs=[x, y, 2.0])
    ```
    Give a kernel made on first use a module of its own (or read every such property
    before the first launch; that does not help a generic kernel, whose `Any` parameters
    join the module again at its first launch):
    ```python
    import functools

    import warp as wp

    class Spring:
        def __init__(self, x):
            self.x = x

        def fun(self):
            wp.launch(self.fun_kernel, dim=self.x.shape, inputs=[self.x])

        def grad(self):
            wp.launch(self.grad_kernel, dim=self.x.shape, inputs=[self.x])

        @functools.cached_property
        def fun_kernel(self):
            @wp.kernel(module="unique")
            def kernel(x: wp.array(dtype=float)):
                x[wp.tid()] = 0.5 * x[wp.tid()]

            return kernel

        @functools.cached_property
        def grad_kernel(self):
            @wp.kernel(module="unique")
            def kernel(x: wp.array(dtype=float)):
                x[wp.tid()] = 1.0

            return kernel

    spring = Spring(wp.zeros(16, dtype=float))
    spring.fun()
    spring.grad()
    ```

    ## When not to apply
    A kernel with `module="unique"` has a module of its own, and launching a kernel of
    another file does not load this file's module:
    ```python
    import warp as wp

    @wp.kernel
    def init(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = 0.0

    x = wp.zeros(16, dtype=float)
    wp.launch(init, dim=16, inputs=[x])

    @wp.kernel(module="unique")
    def step(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = x[i] + 1.0

    wp.launch(step, dim=16, inputs=[x])
    ```
    A generic kernel launched first, before anything else loads its module, is
    instantiated into the module's first build; one declared with `wp.overload` up front
    is part of every build.
    '''

    def prepare(self, project: "Project") -> None:
        # The gates' whole-program scans (every flow, once): a third of the gates' time.
        program = project.program()
        for name in _SCANS:
            _scan(program, name)

    def needs_tree(self, summary: "FileSummary", project: "Project") -> bool:
        program, facts = project.program(), project.facts(summary)
        if (_late_generic_instantiations(program, facts) or _late_definitions_through_calls(program, facts)
                or _late_overloads(program, facts) or _late_property_kernels(program, facts)):  # fmt: skip
            return True
        # A finding needs a load and, later in the same flow, a definition. Library files
        # define kernels first and launch them inside functions: no tree for those.
        return _defined_after_a_load(program, facts)

    def visit_module(self, node: ast.Module, ctx: FileContext) -> None:
        for owner, items in flow_index(ctx).flows:
            # Only a flow with a load can report: check the cheap callee label first.
            if not any(type(n) is ast.Call and callee_label(n) in LOADER_LABELS for n in items):
                continue
            if isinstance(owner, syntax.FUNCTION_TYPES) and is_warp_code(owner, ctx):
                continue
            additions = list(_additions(ctx, owner, items))
            if not additions:
                continue
            loads = loads_in(ctx, owner, items)
            if not loads:
                continue
            for added, module, what in additions:
                load = loaded_before(ctx, loads, module, added)
                if load is None:
                    continue
                ctx.report(
                    added,
                    f"{what} joins {describe(ctx, module)} after {load.what}: the module gets a new hash and "
                    "is built again, whole, at its next launch. Define it before the first launch.",
                )


    def leave_module(self, node: ast.Module, ctx: FileContext) -> None:
        program, facts = ctx.program, ctx.facts
        defs = {(d.funcdef.name, d.funcdef.lineno): d.funcdef for d in ctx.kernel_decorators()}
        late_properties = _late_property_kernels(program, facts)
        # A generic kernel a property makes late is told once, by the property's message.
        told = {id(kernel) for kernel, *_ in late_properties}
        for kernel, load, launch in _late_generic_instantiations(program, facts):
            if id(kernel) in told:
                continue
            funcdef = defs.get((kernel.name, kernel.span[0]))
            if load is launch:
                ctx.report(
                    funcdef if funcdef is not None else ctx._range(*kernel.span),
                    f"The generic kernel `{kernel.name}` (its `Any` parameters are made concrete at launch) is "
                    f"launched at {where(launch.site_module, launch.span, ctx.module_name)} with "
                    f"{_several_types(program, launch)}: the first launch loads its module, and each new type then "
                    "joins it as a new instantiation, so the module is built again, whole, once per type. Declare "
                    "the concrete types up front with `wp.overload` beside the kernel.",
                )
                continue
            first = _launched_kernel_name(program, load)
            if _launches_kernel(program, load, kernel):
                # The same kernel loaded the module with other types: a second instantiation.
                ctx.report(
                    funcdef if funcdef is not None else ctx._range(*kernel.span),
                    f"The generic kernel `{kernel.name}` (its `Any` parameters are made concrete at launch) is "
                    f"launched at {where(launch.site_module, launch.span, ctx.module_name)} with other types than at "
                    f"{where(load.site_module, load.span, ctx.module_name)}, which loaded its module: the new "
                    "instantiation joins the module, which is built again, whole. Declare the concrete types up "
                    "front with `wp.overload` beside the kernel.",
                )
                continue
            ctx.report(
                funcdef if funcdef is not None else ctx._range(*kernel.span),
                f"The generic kernel `{kernel.name}` (its `Any` parameters are made concrete at launch) is first "
                f"launched at {where(launch.site_module, launch.span, ctx.module_name)}, after {first} loaded its "
                f"module ({where(load.site_module, load.span, ctx.module_name)}): the new instantiation joins the "
                "module, which is built again, whole. Declare the concrete types up front with `wp.overload` "
                "beside the kernel.",
            )
        for kernel, load, define, siblings in late_properties:
            funcdef = defs.get((kernel.name, kernel.span[0]))
            if load is None or define is None:
                ctx.report(
                    funcdef if funcdef is not None else ctx._range(*kernel.span),
                    f"The property `{kernel.function}` defines the kernel `{kernel.name}` when it is first read, "
                    f"into the same module as {len(siblings) - 1} other kernel(s) made the same way "
                    f"({', '.join(f'`{n}`' for n in siblings if n != kernel.function.rsplit('.', 1)[-1])}), each "  # type: ignore[union-attr]
                    "launched from its own method: whichever is read after another was launched joins the loaded "
                    "module, which is built again, whole. " + _property_advice(kernel),
                )
                continue
            read = innermost_call(define.via)
            ctx.report(
                funcdef if funcdef is not None else ctx._range(*kernel.span),
                f"The property `{kernel.function}` defines the kernel `{kernel.name}` when it is first read "
                f"({where(read[0], read[1], ctx.module_name)}), after {_launched_kernel_name(program, load, made_in=True)} "
                f"loaded its module ({where(load.site_module, load.span, ctx.module_name)}): the module gets a new hash and "
                "is built again, whole, once per kernel made this late. " + _property_advice(kernel),
            )
        for overload, load in _late_overloads(program, facts):
            kernel = program.kernel(overload.detail)
            ctx.report(
                ctx._range(*overload.span),
                f"This overload of `{kernel.name}` joins its module after {_launched_kernel_name(program, load)} "
                f"loaded it ({where(load.site_module, load.span, ctx.module_name)}, before "
                f"`{innermost_call(overload.via)[2]}()` runs this): the module gets a new hash and is built again, whole, at "
                "its next launch. Declare the overload at import, beside the kernel.",
            )
        for site, factory, define, load in _late_definitions_through_calls(program, facts):
            kernel = program.kernel(define.detail)
            kind, index = load.detail
            if kind.startswith("launch") and define.detail in program.launch_kernels(load.site_module, index):
                # The same kernel made again with other captured values (a cached factory asked
                # for another dtype): a new variant joins the module its first variant loaded.
                ctx.report(
                    ctx._range(*site),
                    f"`{factory}()` defines a new variant of the kernel `{kernel.name}` "
                    f"({where(define.site_module, define.span, ctx.module_name)}), with other captured values than "
                    f"the one launched at {where(load.site_module, load.span, ctx.module_name)}, into the module that "
                    "launch loaded: each new variant gets the module a new hash and builds it again, whole. Create "
                    "every variant the program needs before the first launch.",
                )
                continue
            ctx.report(
                ctx._range(*site),
                f"`{factory}()` defines the kernel `{kernel.name}` "
                f"({where(define.site_module, define.span, ctx.module_name)}) in a module that "
                f"{_launched_kernel_name(program, load)} already loaded "
                f"({where(load.site_module, load.span, ctx.module_name)}): the module gets a new hash and is built "
                "again, whole, at its next launch. Create the kernel before the first launch.",
            )


def _launches_kernel(program: Program, load: Event, kernel: KernelFact) -> bool:
    """The load is a launch of ``kernel`` itself."""
    kind, index = load.detail
    return kind.startswith("launch") and any(
        isinstance(k, KernelRef) and program.kernel(k) is kernel for k in program.launch_kernels(load.site_module, index)
    )


def _property_advice(kernel: KernelFact) -> str:
    return _GENERIC_PROPERTY_ADVICE if kernel.generic else _PROPERTY_ADVICE


def _scan(program: Program, name: str) -> dict:
    """One of the whole-program scans the gates share (``_SCANS``), once per program."""
    return program.memo(f"WCT007.{name}", lambda: _SCANS[name](program))


def _defined_after_a_load(program: Program, facts: FileFacts) -> bool:
    """Some function (or the module body) defines a kernel, function or struct of the
    file's module after a launch or load of its own that may load that module, or declares
    an overload after any launch: what the tree check looks at."""
    first_own: dict[str | None, int] = {}  # function -> order of its first load of this module
    first_any: dict[str | None, tuple[int, int]] = {}  # function -> (line, column) of its first load
    for index, launch in enumerate(facts.launches):
        place = launch.span[:2]
        first_any[launch.function] = min(place, first_any.get(launch.function, place))
        modules = program.launch_modules(facts.module, index)
        if facts.module in modules or UNRESOLVED in modules:  # not only unique or other files' kernels
            first_own[launch.function] = min(launch.order, first_own.get(launch.function, launch.order))
    definitions = [(k.function, k.order) for k in facts.kernels if k.module is None]
    definitions += [(function, order) for _name, function, order, _line in facts.structs]
    if any(function in first_own and order > first_own[function] for function, order in definitions):
        return True
    return any(function in first_any and first_any[function] < span[:2] for _name, span, function in facts.overloads)


def _returns_kernel(program: Program, link: tuple, kernel: KernelRef) -> bool:
    """The call of ``link`` (one step of a call chain) hands back ``kernel``."""
    _module, _span, qualname, module = link
    key = (module, qualname, kernel)
    memo = program.memo("WCT007.returns", dict)
    if key not in memo:
        target = FunctionRef(module, qualname)
        fact = program.function(target)
        memo[key] = fact is not None and any(
            kernel in program.kernels_of_value(target.module, target.qualname, returned) for returned in fact.returns
        )
    return memo[key]


def _late_overloads(program: Program, facts: FileFacts) -> list[tuple[Event, Event]]:
    """(``wp.overload`` of this file, the earlier load) where some flow of the program runs
    the overload after its kernel's module was loaded."""
    return _scan(program, "overloads").get(facts.module, [])


def _all_late_overloads(program: Program) -> dict[str, list[tuple[Event, Event]]]:
    """``_late_overloads`` for every module, from one scan of the program's flows."""
    found: dict[tuple, tuple[Event, Event]] = {}
    owners = [FunctionRef(module, function) for module, facts in program.modules.items()
              for _name, _span, function in facts.overloads if function is not None]  # fmt: skip
    for _ref, events in _flows_reaching(program, owners, shallow=True):
        if not any(event.kind == "overload" for event in events):
            continue
        history = LoadHistory()
        for event in events:
            if event.kind == "load":
                history.add(event)
            elif event.kind == "overload" and (event.site_module, event.span) not in found:
                if not event.via:
                    continue  # in the same function as its load: the tree check reports it
                load = history.before(event)
                if load is not None:
                    found[(event.site_module, event.span)] = (event, load)
    out: dict[str, list[tuple[Event, Event]]] = {}
    for (module, _span), pair in found.items():
        out.setdefault(module, []).append(pair)
    return out


def _launched_kernel_name(program: Program, load: Event, made_in: bool = False) -> str:
    """``made_in``: name the function that makes the launched kernel (kernels made in
    properties are often all called ``kernel``)."""
    kind, index = load.detail
    kernels = [program.kernel(k) for k in program.launch_kernels(load.site_module, index) if isinstance(k, KernelRef)]
    if kind.startswith("launch") and kernels:
        maker = f" (made in `{kernels[0].function}`)" if made_in and kernels[0].function else ""
        return f"the launch of `{kernels[0].name}`{maker}"
    return f"`wp.{kind}`" if kind in ("force_load", "load_module") else "a launch"


def _overloaded(program: Program, ref: KernelRef, kernel: KernelFact) -> bool:
    if ref in program.overloaded_kernels():
        return True  # also through a helper that overloads the kernel it is handed
    for facts in program.modules.values():
        for name, _span, _function in facts.overloads:
            if name.rsplit(".", 1)[-1] == kernel.name:
                return True
    return False


def _flows_reaching(program: Program, targets: list[FunctionRef],
                    shallow: bool = False) -> Iterator[tuple[FunctionRef, tuple[Event, ...]]]:  # fmt: skip
    """The flows (functions and module bodies) that can run one of ``targets``."""
    if not targets:
        return
    # In a fixed order: the first flow to show a late instantiation is the one reported.
    for ref in sorted(program.reaching(targets), key=lambda r: (r.module, r.qualname)):
        if ref.qualname == "<module>" or program.function(ref) is not None:
            yield ref, program.effects(ref, shallow=shallow)


def _late_generic_instantiations(program: Program, facts: FileFacts) -> list[tuple[KernelFact, Event, Event]]:
    """(generic kernel of this file, the load before, its first launch) where some flow
    loads the kernel's module (launching another kernel of it, or this one with other
    dtypes) before it launches the generic kernel, which no ``wp.overload`` declares."""
    if not any(kernel.generic for kernel in facts.kernels):
        return []
    found = _scan(program, "generic")
    return [entry for ref, entry in found.items() if ref.module == facts.module]


def _all_late_generic(program: Program) -> dict[KernelRef, tuple[KernelFact, Event, Event]]:
    """``_late_generic_instantiations`` for every module, from one scan of the flows."""
    generic = {
        ref: kernel
        for ref, kernel in program.kernels()
        if kernel.generic and kernel.decorator == "kernel" and not _overloaded(program, ref, kernel)
    }
    if not generic:
        return {}
    # Kernels whose launches with other types may each reach another kernel object, in a
    # module of its own: other dtypes say nothing of them.
    per_variant = {ref for ref, kernel in generic.items() if _module_per_variant(program, ref, kernel)}
    found: dict[KernelRef, tuple[KernelFact, Event, Event]] = {}
    # One launch site that receives arrays of several dtypes: the first call loads the
    # module, each new dtype instantiates the kernel again after that load. The inputs of
    # every site first, then the outputs: the message names the site (an output buffer made
    # per object is often written under a guard the model does not read).
    for arguments in ("inputs", "outputs"):
        for module, launch_facts in program.modules.items():
            for index, launch in enumerate(launch_facts.launches):
                if not launch.kind.startswith("launch"):
                    continue
                for kref in program.launch_kernels(module, index):
                    if kref not in generic or kref in found or kref in per_variant:
                        continue
                    for value in getattr(launch, arguments):
                        dtypes = program.array_dtypes(module, launch.function, value) - {"?"}
                        if len(dtypes) > 1:
                            event = Event("load", frozenset(), module, launch.span, (), (launch.kind, index))
                            found[kref] = (generic[kref], event, event)
                            break
    # (module, launch index) -> the generic kernels it launches: the flows below hold
    # hundreds of thousands of loads, and only these can instantiate late.
    generic_at: dict[tuple[str, int], tuple[KernelRef, ...]] = {}
    for module, launch_facts in program.modules.items():
        for index, launch in enumerate(launch_facts.launches):
            if launch.kind.startswith("launch"):
                launched = tuple(k for k in program.launch_kernels(module, index) if k in generic)
                if launched:
                    generic_at[(module, index)] = launched
    launchers = [
        FunctionRef(module, program.modules[module].launches[index].function or "<module>")
        for module, index in generic_at
    ]
    # (kernel, earlier launch site, later launch site) -> whether the later one instantiates
    # the kernel anew: flows meet the same pairs of sites again and again.
    instantiates: dict[tuple, bool] = {}
    for _ref, events in _flows_reaching(program, launchers):
        loads: list[Event] = []
        loads_of: dict[Any, list[int]] = {}  # Warp module -> positions in ``loads`` of its loads
        for event in events:
            own = event.own  # the event itself, or a callee's as this flow inlines it
            if own.kind != "load":
                continue
            kind, index = own.detail
            for kref in generic_at.get((own.site_module, index), ()) if kind.startswith("launch") else ():
                if kref in found:
                    continue
                # The earlier loads of a module this launch loads too, in flow order.
                shared = sorted({i for module in own.warp_modules for i in loads_of.get(module, ())})
                for earlier in map(loads.__getitem__, shared):
                    pair = (kref, earlier.site_module, earlier.detail[1], own.site_module, index)
                    anew = instantiates.get(pair)
                    if anew is None:
                        # Another kernel loaded the module first, or this one with other dtypes.
                        anew = instantiates[pair] = (
                            kref not in program.launch_kernels(earlier.site_module, earlier.detail[1])
                            or kref not in per_variant and _other_dtypes(program, earlier, event)
                        )
                    if anew and not earlier.exclusive_with(event):
                        found[kref] = (generic[kref], earlier, event)
                        break
            for module in own.warp_modules:
                loads_of.setdefault(module, []).append(len(loads))
            loads.append(event)
    return found


def _module_per_variant(program: Program, ref: KernelRef, kernel: KernelFact) -> bool:
    """A kernel a factory defines into a module named per call (``module=f"narrow_{writer.key}"``,
    ``module="unique"``, ``dynamic_kernel``) where the factory's calls may pass other arguments: each variant is
    another kernel object in a module of its own (newton's narrow phase, one per contact
    writer), so a launch site that sees several types may hand each to another variant.
    Arguments are the same for every call only where each call site passes constants or
    module-level names, outside loops, and all sites pass the same."""
    if kernel.function is None or kernel.module is None:
        return False
    if not any(m is UNRESOLVED or is_own_module_key(module_key(m)) for m in program.kernel_modules(ref)):
        return False  # a named module every variant joins
    calls = program.callers(FunctionRef(ref.module, kernel.function))
    if not calls:
        return True  # called from outside the project: with anything
    passed = set()
    for _caller, _module, call in calls:
        arguments = (*call.args, *call.kwargs.values())
        if call.loop_depth or call.passes_star or any(a.kind not in ("const", "name") for a in arguments):
            return True
        passed.add(repr((call.args, sorted(call.kwargs.items()))))
    return len(passed) > 1


def _late_property_kernels(program: Program, facts: FileFacts) -> list[tuple[KernelFact, Event | None, Event | None, list[str]]]:
    """(kernel defined in a property of this file, the earlier load of its module, the
    definition, []) where some flow loads the module before it first reads the property:
    a ``functools.cached_property`` that makes its kernel on first use, beside others.
    (kernel, None, None, the sibling properties) where no flow in view orders the reads."""
    found = _scan(program, "properties")
    return [entry for ref, entry in found.items() if ref.module == facts.module]


def _all_late_property_kernels(program: Program) -> dict[KernelRef, tuple[KernelFact, Event | None, Event | None, list[str]]]:
    lazy = {
        ref: kernel
        for ref, kernel in program.kernels()
        if kernel.function is not None and kernel.module is None and kernel.decorator == "kernel"
        and program.is_property(FunctionRef(ref.module, kernel.function))
    }  # fmt: skip
    found: dict[KernelRef, tuple[KernelFact, Event | None, Event | None, list[str]]] = {}
    ordered: list[set[KernelRef]] = []  # per flow, the lazy kernels it defines (2+: their order is known)
    getters = list({FunctionRef(ref.module, kernel.function): None for ref, kernel in lazy.items()})  # type: ignore[arg-type]
    for _ref, events in _flows_reaching(program, getters, shallow=True):
        loads_of: dict[str, list[Event]] = {}  # Warp module -> its loads so far in the flow
        defined: list[Event] = []
        for event in events:
            own = event.own
            if own.kind == "load":
                for module in own.warp_modules:
                    loads_of.setdefault(module, []).append(event)
            elif own.kind == "define" and own.detail in lazy:
                if any(e.own.detail == own.detail for e in defined):
                    continue  # read again: the property's cache (or an identical kernel) answers
                defined.append(event)
                for module in own.warp_modules if own.detail not in found else ():
                    earlier = next((e for e in loads_of.get(module, ()) if not e.exclusive_with(event)), None)
                    if earlier is not None:
                        found[own.detail] = (lazy[own.detail], earlier, event, [])
                        break
        if len(defined) > 1:
            ordered.append({e.own.detail for e in defined})
    # No flow in view orders the reads (the class's methods are called from code the model
    # cannot follow: a dict of energies, a solver's callback): the caller decides the order.
    # Of several kernels one class makes lazily into one module and launches from different
    # methods, each one read after another was launched joins the loaded module.
    by_class: dict[tuple[str, str | None], list[KernelRef]] = {}
    for ref, kernel in lazy.items():
        by_class.setdefault((ref.module, program.class_of(FunctionRef(ref.module, kernel.function))), []).append(ref)  # type: ignore[arg-type]
    for (_module, class_name), refs in by_class.items():
        if class_name is None or len(refs) < 2 or any(len(flow.intersection(refs)) > 1 for flow in ordered):
            continue  # a flow in view reads two of them: the flows above tell whether that is late
        readers = {caller for ref in refs
                   for caller, _m, _call in program.callers(FunctionRef(ref.module, lazy[ref].function))}  # type: ignore[arg-type]  # fmt: skip
        if len(readers) < 2:
            continue  # one method reads them all: in its own order, which a flow through it shows
        names = [lazy[ref].function.rsplit(".", 1)[-1] for ref in refs]  # type: ignore[union-attr]
        for ref in refs:
            found.setdefault(ref, (lazy[ref], None, None, names))
    return found


def _other_dtypes(program: Program, first: Event, later: Event) -> bool:
    """Two launches whose array arguments have different known dtypes at some position of
    their inputs or of their outputs (each list by position: an ``inputs=`` passed as one
    variable leaves the outputs' positions where they are)."""
    (first_inputs, first_outputs) = _argument_dtypes(program, first)
    (later_inputs, later_outputs) = _argument_dtypes(program, later)
    for left, right in (*zip(first_inputs, later_inputs), *zip(first_outputs, later_outputs)):
        if left and right and left != right:
            return True
    return False


def _several_types(program: Program, launch: Event) -> str:
    """What one launch site passes in several types: "arrays of several dtypes (`wp.float32`,
    `wp.float64`)" or "values of several `wp.struct` types (`Sphere`, `Box`)"."""
    types = next((t for t in (t for part in _argument_dtypes(program, launch) for t in part) if len(t) > 1), frozenset())
    short = [_type_name(t) for t in sorted(types)]
    # Two structs of one name in two modules (``narrow_phase.ContactWriterData``,
    # ``collide.ContactWriterData``): their modules tell them apart.
    shown = [s if short.count(s) == 1 else ".".join(t.split(".")[-2:]) for s, t in zip(short, sorted(types))]
    names = ", ".join(f"`{name}`" for name in shown)
    if types and not any(t.startswith("warp.") for t in types):
        return f"values of several `wp.struct` types ({names})"
    return f"arrays of several dtypes ({names})"


def _type_name(dotted: str) -> str:
    return "wp." + dotted[5:] if dotted.startswith("warp.") else dotted.rpartition(".")[2]


def _argument_dtypes(program: Program, load: Event) -> tuple[list[frozenset[str]], list[frozenset[str]]]:
    """The known dtypes of each input and of each output of a launch (memoized: flows meet the
    same launches)."""
    memo = program.memo("WCT007.argument_dtypes", dict)
    key = (load.site_module, load.detail[1])
    if key not in memo:
        launch = program.modules[load.site_module].launches[load.detail[1]]
        memo[key] = tuple(
            [frozenset(program.array_dtypes(load.site_module, launch.function, value) - {"?"}) for value in values]
            for values in (launch.inputs, launch.outputs)
        )
    return memo[key]


def _late_definitions_through_calls(program: Program, facts: FileFacts) -> list[tuple[tuple, str, Event, Event]]:
    """(call site in this file, the factory it calls, definition, earlier load) where some
    flow calls a factory that defines a kernel into a module the flow already loaded, at
    the call that asks for the kernel: ``wp.launch(make_k(), ...)`` in a method that a step
    calls after another method launched a kernel of that module. Definitions directly in
    the function are the tree check's; factories on a hot path are WCT003's."""
    found = _scan(program, "through_calls")
    return found.get(facts.module, [])


def _all_late_definitions_through_calls(program: Program) -> dict[str, list[tuple[tuple, str, Event, Event]]]:
    # Only a definition through a call can be reported here, and only one into a shared
    # module: the flows that call such a factory.
    reaching = program.memo("WCT007.factories", lambda: program.calling(_factories_of_shared_modules(program)))
    # (site module, site) -> (depth of the site in the chain, entry): a call the flow makes
    # itself wins over one found deeper in another flow's chain.
    best: dict[tuple[str, tuple], tuple[int, tuple[tuple, str, Event, Event]]] = {}
    for module, facts in program.modules.items():
        for qualname in [*facts.functions, "<module>"]:
            ref = FunctionRef(module, qualname)
            if ref not in reaching:
                continue  # calls no factory: defines nothing through a call
            history = LoadHistory()
            defined: dict[KernelRef, list[tuple]] = {}  # kernel -> the calls that defined it so far
            for event in program.effects(ref, shallow=True):
                if event.kind == "load":
                    history.add(event)
                    continue
                if event.kind != "define" or event.first_link is None:
                    continue
                asking = _asking_call(program, event)
                if asking is None:
                    asking = _adding_call(program, event)  # a method that adds the kernel, keeps it
                earlier = defined.setdefault(event.detail, [])
                if asking is not None:
                    earlier.append(asking[1])
                load = history.before(event, [m for m in event.warp_modules if not is_own_module_key(m)])
                if load is None or asking is None:
                    continue
                if len(earlier) > 1 and not _new_variant(program, earlier[:-1], asking[1]):
                    continue  # defined again with the same values: the factory's cache, or the same hash
                depth, (site_module, site, factory_name, _callee_module) = asking
                kernel = program.kernel(event.detail)
                factory = FunctionRef(event.detail.module, kernel.function) if kernel.function else None
                if factory is not None and _cache_hit(program, factory, asking[1]):
                    continue  # the factory's module asked for these values at import
                if factory and program.frequency(factory).freq == Freq.HOT and not program.memoized(factory):
                    continue  # WCT003 reports the factory itself
                key = (site_module, site)
                if key not in best or depth < best[key][0]:
                    best[key] = (depth, (site, factory_name, event, load))
    found: dict[str, list[tuple[tuple, str, Event, Event]]] = {}
    for (site_module, _site), (_depth, entry) in best.items():
        found.setdefault(site_module, []).append(entry)
    return found


def _factories_of_shared_modules(program: Program) -> list[FunctionRef]:
    """The functions that define a kernel which can land in a module other kernels share.

    A definition into a module of its own (``module="unique"``) joins no loaded module: only
    the flows that reach these factories can hold a late definition through a call (most
    factories make unique kernels: mujoco-warp's 212 make 8 shared-module kernels, all in
    tests, which nothing calls)."""
    found: dict[FunctionRef, None] = {}
    for module, facts in program.modules.items():
        for index, kernel in enumerate(facts.kernels):
            if kernel.function is None or kernel.decorator != "kernel":
                continue
            keys = (module_key(m) for m in program.kernel_modules(KernelRef(module, index)) if m is not UNRESOLVED)
            if any(not is_own_module_key(key) for key in keys):  # as the scan's ``history.before`` filters them
                found.setdefault(FunctionRef(module, kernel.function))
    return list(found)


def _adding_call(program: Program, event: Event) -> tuple[int, tuple] | None:
    """(depth, link) of the call that runs the function defining the kernel, when no call of
    the chain hands it back: a method that adds a kernel to its object (``self.apply =
    apply``) or to a table, run after the module was loaded. None on a property's read
    (``_late_property_kernels``) and for a definition the flow makes itself."""
    depth, chain, last = 0, event.via, None
    while chain:
        link, chain = chain
        if program.is_property(FunctionRef(link[3], link[2])):
            return None
        last = (depth, link)
        depth += 1
    return last


def _cache_hit(program: Program, factory: FunctionRef, link: tuple) -> bool:
    """The call of ``link`` asks the memoized ``factory`` itself for values its module's body
    already asked for at import: its cache answers, nothing is defined."""
    _site_module, _span, callee, callee_module = link
    if (callee_module, callee) != (factory.module, factory.qualname):
        return False
    call = _call_at(program, link)
    return call is not None and program.warmed_at_import(factory, link[0], call[0], call[1])


def _new_variant(program: Program, before: list[tuple], link: tuple) -> bool:
    """Whether the call ``link`` can define the kernel with other captured values than the
    calls ``before`` did in the same flow (a memoized factory asked for another dtype: a new
    variant joins the module). The same call site again: when one of its arguments varies
    between calls (a loop variable, a parameter given several values, arrays of several
    dtypes). Another site: when an argument resolves to other values than the first site's.
    Unknown stays silent."""
    call = _call_at(program, link)
    if call is None:
        return False
    site_module, _span, _callee, _callee_module = link
    function = call[0]
    for other in before:
        if other[:2] == link[:2]:
            if any(_argument_varies(program, site_module, function, arg) for arg in (*call[1].args, *call[1].kwargs.values())):
                return True
            continue
        previous = _call_at(program, other)
        if previous is None or len(previous[1].args) != len(call[1].args):
            continue
        for mine, theirs in zip(call[1].args, previous[1].args):
            a = _known_values(program, site_module, function, mine)
            b = _known_values(program, other[0], previous[0], theirs)
            if a is not None and b is not None and a != b:
                return True
    return False


def _known_values(program: Program, module: str, function: str | None, value: Any) -> frozenset[str] | None:
    """What an argument can be, as text (a Warp name such as ``wp.float32`` as itself); None when unknown."""
    if value.kind == "name" and isinstance(value.data, str) and value.data.startswith("warp."):
        return frozenset({value.data})
    resolved = program.resolve(module, function, value)
    if not resolved or UNRESOLVED in resolved:
        return None
    return frozenset(repr(v) for v in resolved)


def _call_at(program: Program, link: tuple):
    """(calling function's qualname or None, CallFact) of a chain link's call."""
    site_module, span, _callee, _callee_module = link
    index = program.memo(f"WCT007.calls_at.{site_module}", lambda: _calls_by_span(program, site_module))
    return index.get(span)


def _calls_by_span(program: Program, module: str) -> dict:
    facts = program.modules.get(module)
    found: dict = {}
    if facts is None:
        return found
    for qualname, fact in facts.functions.items():
        for call in fact.calls:
            found.setdefault(call.span, (qualname, call))
    for call in (*facts.module_calls, *facts.main_calls):
        found.setdefault(call.span, (None, call))
    return found


def _argument_varies(program: Program, module: str, function: str | None, argument: Any) -> bool:
    """``program.varies``, and ``x.dtype`` of a parameter or local whose arrays have several
    known dtypes."""
    if program.varies(module, function, argument):
        return True
    data = argument.data if argument.kind == "name" and isinstance(argument.data, str) else ""
    if function is None or not data.endswith(".dtype") or data.count(".") != 1:
        return False
    base = data[: -len(".dtype")]
    fact = program.function(FunctionRef(module, function))
    if fact is None:
        return False
    if base in fact.params:
        values = [argument.__class__("param", base)]
    else:
        values = list(fact.locals.get(base, ()))
    dtypes: set[str] = set()
    for value in values:
        dtypes |= program.array_dtypes(module, function, value)
    return len(dtypes - {"?"}) > 1


def _asking_call(program: Program, event: Event) -> tuple[int, tuple] | None:
    """(depth, link) of the first call in the definition's chain that hands the kernel back
    (a factory, or a memoized dispatcher over one): the line that asks for the kernel is the
    one to move. Wrappers above it that define and launch inside are not."""
    depth, chain = 0, event.via
    while chain:
        link, chain = chain
        if _returns_kernel(program, link, event.detail):
            if program.is_property(FunctionRef(link[3], link[2])):
                return None  # a kernel made on a property's first read: _late_property_kernels
            return depth, link
        depth += 1
    return None


def _additions(ctx: FileContext, owner: ast.AST, items: list[ast.AST]) -> Iterator[tuple[ast.AST, str, str]]:
    """(node, module, description) for definitions in ``owner``'s flow that join a module."""
    for node in items:
        if isinstance(node, syntax.FUNCTION_TYPES) and node is not owner:
            dec = ctx.kernel_decorator(node, kinds=_JOINS_FILE_MODULE)
            if dec is None:
                continue
            if dec.kind == "kernel" and "module" in dec.keywords:
                continue  # module="unique" (or a named module): not this file's module
            if dec.kind == "overload":
                yield node, ctx.module_name, f"The overload `{node.name}`"
                continue
            label = {"kernel": "kernel", "struct": "struct"}.get(dec.kind, "function")
            yield node, ctx.module_name, f"The {label} `{node.name}`"
        elif isinstance(node, ast.ClassDef):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if ctx.warp_name(target) == "warp.struct":
                    if isinstance(decorator, ast.Call) and ctx.keyword(decorator, "module") is not None:
                        break
                    yield node, ctx.module_name, f"The struct `{node.name}`"
                    break
        elif isinstance(node, ast.Call) and _may_be_overload(node) and ctx.call_name(node) == "warp.overload":
            kernel = ctx.keyword(node, "kernel", 0)
            module = kernel_module(ctx, kernel)
            if module is not None:
                yield node, module, f"The overload of `{ctx.source_of(kernel)}`"


def _may_be_overload(call: ast.Call) -> bool:
    """A dotted callee's Warp name ends with its last attribute: ``x.y.f()`` can only be
    ``wp.overload`` when ``f`` is ``overload`` (a bare name may be an alias: resolve it)."""
    func = call.func
    return isinstance(func, ast.Name) or isinstance(func, ast.Attribute) and func.attr == "overload"


# The whole-program scans every file's gate and check read (``prepare`` runs them before a
# batch forks workers that share them).
_SCANS = {
    "generic": _all_late_generic,
    "through_calls": _all_late_definitions_through_calls,
    "overloads": _all_late_overloads,
    "properties": _all_late_property_kernels,
}
