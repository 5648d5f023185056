"""The project model: the facts of every linted file joined into one Warp program.

The second of the analyzer's three layers. It answers the questions a rule needs and a
single file cannot: which Warp module a kernel lands in (the file's, a named
``module="pkg.x"``, a unique one), what a parameter's value is at the calls that matter
(defaults, call-site arguments in other files, tuples and loop tables), how often a
function runs (at import, once, once per object, on every step), which kernels a launch
can reach (a factory's return value, ``self.k``, ``kernels[dtype]``), and what a function
does to Warp in order, with its callees' effects inlined (loads, option changes, kernel
definitions). Every answer can be "unknown": rules then stay silent.

Everything is memoized per ``Program`` (built once per set of file facts).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Any, Iterable, Iterator, Sequence

from warp_ct.analyzer.facts import (
    CallFact,
    exclusive,
    FileFacts,
    FunctionFact,
    KernelFact,
    LaunchFact,
    OptionFact,
    UNKNOWN,
    Value,
)
from warp_ct.analyzer.recursion import QueryMemo

UNIQUE = "unique"
MAX_DEPTH = 12  # how far values and effects are followed through calls
_NO_CUT = 1 << 30  # effects(): no recursion cut the flow short

# Methods and functions that, by the conventions of simulation and ML code, run many times:
# a simulator's step, a model's forward, a pipeline's run, a callback.
HOT_NAMES = frozenset({
    "run", "step", "forward", "__call__", "update", "simulate", "integrate", "advance", "tick",
    "render", "solve", "apply", "evaluate", "compute", "backward", "predict", "rollout", "iterate",
    "process", "execute", "train_step", "sample", "collide", "on_step", "on_frame", "frame", "record",
})  # fmt: skip
ONCE_NAMES = frozenset({"main", "cli", "setup", "configure", "init", "initialize", "setup_tests"})
_ONCE_PREFIXES = ("test_", "pytest_", "setup_", "init_", "configure_", "main_")
# The last part of decorators that make a method an attribute read (``functools.cached_property``...).
_PROPERTY_DECORATORS = frozenset({"property", "cached_property"})
_HOT_PREFIXES = ("step_", "forward_", "run_", "simulate_", "update_", "render_")


class Freq(enum.IntEnum):
    """How often a function's body runs in a process, ordered by cost."""

    UNCALLED = 0  # nothing in the project calls it: a public API or a callback; unknown
    IMPORT = 1  # at import (module level)
    ONCE = 2  # once per process: an entry point, main(), a test
    PER_OBJECT = 3  # once per object: a constructor
    UP_FRONT = 4  # many times while setting up: a loop that makes things and launches nothing
    HOT = 5  # many times: a step/run/forward method, a loop that launches


@dataclass(slots=True, unsafe_hash=True)  # not frozen: a frozen __init__ costs 7x
class Frequency:
    freq: Freq
    why: str  # "`Pipeline.run()` runs on every call", "called in a loop in `main()` (line 40)"


_RECURSION = Frequency(Freq.ONCE, "recursion")


@dataclass(slots=True, unsafe_hash=True)  # not frozen: a frozen __init__ costs 7x
class FunctionRef:
    module: str
    qualname: str

    def __str__(self) -> str:
        return self.qualname


@dataclass(slots=True, unsafe_hash=True)  # not frozen: a frozen __init__ costs 7x
class KernelRef:
    module: str  # the Python module that defines it
    index: int  # into that module's ``facts.kernels``


@dataclass(slots=True, unsafe_hash=True)  # not frozen: a frozen __init__ costs 7x
class Event:
    """One Warp-relevant step of a flow, in order, with where it happens."""

    kind: str  # "load" | "options" | "define" | "generic_launch"
    warp_modules: frozenset[str]  # the Warp module identities it concerns ("unique:<k>" for unique ones)
    site_module: str  # the Python module whose line it is
    span: tuple[int, int, int, int]
    # The call chain from the flow root, as a linked list: () in the root itself, else
    # (first link, rest of the chain); a link is (calling module, call span, callee
    # qualname, callee module). ``via[0]`` is the root's own call; see ``innermost_call``.
    via: tuple
    detail: Any = None
    # The if/match arms it sits in, in the flow root's own code (for an event of a callee:
    # those of the call). Events on different arms of one branch never run in one pass.
    path: tuple[tuple[int, int], ...] = ()

    def exclusive_with(self, other: "Event") -> bool:
        return exclusive(self.path, other.path)

    @property
    def own(self) -> "Event":
        return self

    @property
    def first_link(self) -> tuple | None:
        """``via[0]`` without building the chain: the root's own call, None in the root."""
        return self.via[0] if self.via else None


class CalleeEvent:
    """A callee's event as a caller's flow sees it: the callee's own event shared, the call
    that runs it, and the caller's arms. Inlining a callee into each of its callers makes
    one of these per event (under half the memory of a copy with its chain: 67 -> 26 MiB over
    the three corpora)."""

    __slots__ = ("own", "inner", "link", "path")

    def __init__(self, inner: "Event | CalleeEvent", link: tuple[str, tuple[int, int, int, int], str, str],
                 path: tuple[tuple[int, int], ...]) -> None:  # fmt: skip
        self.own: Event = inner.own
        self.inner = inner
        self.link = link  # (calling module, call span, callee qualname, callee module)
        self.path = path

    kind = property(lambda self: self.own.kind)
    warp_modules = property(lambda self: self.own.warp_modules)
    site_module = property(lambda self: self.own.site_module)
    span = property(lambda self: self.own.span)
    detail = property(lambda self: self.own.detail)

    @property
    def via(self) -> tuple:
        return (self.link, self.inner.via)

    @property
    def first_link(self) -> tuple:
        return self.link

    def exclusive_with(self, other: "Event | CalleeEvent") -> bool:
        return exclusive(self.path, other.path)


_NO_TARGETS: tuple = ()  # what _call_targets answers for the calls that reach nothing


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNRESOLVED = _Unknown()
_UNRESOLVED_ONLY = (UNRESOLVED,)
_UNKNOWN_DTYPE = frozenset({"?"})


class Program:
    def __init__(self, files: Iterable[FileFacts]) -> None:
        self.modules: dict[str, FileFacts] = {}
        for facts in files:
            self.modules[facts.module] = facts
        self._callers: dict[FunctionRef, list[tuple[FunctionRef | None, str, CallFact]]] | None = None
        self._queries = QueryMemo()  # frequency, resolve, varies, dtypes, kernels, elements
        self._effects: dict[FunctionRef, tuple[Event, ...]] = {}
        self._shallow_effects: dict[FunctionRef, tuple[Event, ...]] = {}
        self._self_attrs: dict[tuple[str, str], dict[str, list[tuple[FunctionRef, Value]]]] = {}
        self._direct_imports: dict[str, frozenset[str]] = {}
        self._own_events_memo: dict[str, dict[str | None, list[tuple[float, list[Event]]]]] = {}
        self._partial_effects: dict[tuple[FunctionRef, bool], tuple[tuple[Event, ...], int]] = {}
        self._cut = _NO_CUT  # set by effects(): the stack depth a recursion in the last result was cut at
        self._launch_kernels: dict[tuple[str, int], tuple[KernelRef, ...]] = {}
        self._closures: dict[str, set[str]] = {}
        self._reached: dict[str, set[FunctionRef]] = {}
        self._memo: dict[str, Any] = {}
        # (module, caller qualname or None, callee) -> resolve_call's answer; None stands for
        # every caller whose scopes do not bind the callee's first name (``_binds``).
        self._resolved_calls: dict[tuple[str, str | None, str], FunctionRef | None] = {}
        self._hook_targets: dict[tuple[str, str], Sequence[FunctionRef]] = {}  # _call_targets' Class.apply hooks
        # (id of a callee's events, shallow) -> (those events, _first_occurrences of them);
        # the events are held so that their id is not reused.
        self._thinned: dict[tuple[int, bool], tuple[tuple, tuple]] = {}
        self._add_helper_launches()

    # ------------------------------------------------------------------ launching helpers
    def _add_helper_launches(self) -> None:
        """A launch of a kernel the function receives (``def run(kernel, n, inputs):
        wp.launch(kernel, ...)``) is, for every rule, a launch at each of its call sites:
        with the kernel, ``block_dim``, device and inputs that call passes, in the caller's
        flow. Those launches are added to the callers' modules (a copy of their facts: the
        files' own stay as extracted). Through helpers handing the kernel on, 3 levels."""
        added: dict[str, list[LaunchFact]] = {}
        for module, facts in self.modules.items():
            for launch in facts.launches:
                if launch.kind in ("launch", "launch_tiled") and launch.kernel.kind == "param" and launch.function:
                    self._launches_at_call_sites(module, launch, added, 0)
        for module, launches in added.items():
            facts = self.modules[module]
            self.modules[module] = replace(facts, launches=[*facts.launches, *launches])

    def _launches_at_call_sites(self, module: str, launch: LaunchFact, added: dict[str, list[LaunchFact]], depth: int) -> None:
        ref = FunctionRef(module, launch.function or "")
        fact = self.function(ref)
        if fact is None or depth > 2:
            return
        for caller, caller_module, call in self.callers(ref):
            if call.passes_star or caller is not None and caller.qualname == "<atexit>":
                continue
            function = caller.qualname if caller is not None and caller.qualname != "<main>" else None

            def passed(value: Value | None) -> Value | None:
                """``value`` of the helper as the call site gives it (UNKNOWN: not here)."""
                if value is None or value.kind == "const":
                    return value
                if value.kind != "param":
                    return UNKNOWN
                argument = argument_passed(fact, call, value.data)
                if argument is None:
                    default = fact.defaults.get(value.data)
                    return default if default is not None and default.kind == "const" else UNKNOWN
                return argument

            kernel = passed(launch.kernel)
            block_dim = passed(launch.block_dim)
            if kernel is None or kernel is UNKNOWN or block_dim is UNKNOWN:
                continue  # not passed here, or a block_dim the helper computes: unknown at this site
            inputs = tuple(passed(item) or UNKNOWN for item in launch.inputs)
            inputs_param = None
            if launch.inputs_param is not None:
                listed = passed(Value("param", launch.inputs_param))
                if listed is not None and listed.kind == "tuple":
                    inputs = listed.items
                elif listed is not None and listed.kind == "param":
                    inputs_param = listed.data
            device = passed(launch.device)
            at_site = replace(
                launch, kernel=kernel, block_dim=block_dim, inputs=inputs, inputs_param=inputs_param, dtypes=(),
                device=None if device is UNKNOWN else device, adjoint=passed(launch.adjoint),
                max_workers=passed(launch.max_workers), span=call.span, function=function, order=call.order,
                loop_depth=call.loop_depth + launch.loop_depth, guarded=call.guarded or launch.guarded,
                taped=call.taped or launch.taped, path=call.path, kernel_span=None,
            )  # fmt: skip
            if kernel.kind == "param":
                if function is not None:
                    self._launches_at_call_sites(caller_module, at_site, added, depth + 1)
                continue
            if all(isinstance(k, KernelRef) for k in self.kernels_of_value(caller_module, function, kernel)):
                added.setdefault(caller_module, []).append(at_site)

    def reaching(self, targets: Iterable[FunctionRef]) -> set[FunctionRef]:
        """The functions whose run can reach one of ``targets`` (themselves included), and
        ``<module>`` flows of modules whose top level calls into them: the only flows worth
        inlining when a question is about what those targets do."""
        return self._callers_closure(targets, enclosing=True)

    def _callers_closure(self, starts: Iterable[FunctionRef], enclosing: bool,
                         more_callers: dict[FunctionRef, list[FunctionRef]] | None = None) -> set[FunctionRef]:  # fmt: skip
        """``starts`` and every flow that calls into them (a module body for its top-level
        calls), transitively; ``enclosing``: the functions that define them, too."""
        seen: set[FunctionRef] = set()
        stack = list(starts)
        while stack:
            ref = stack.pop()
            if ref in seen:
                continue
            seen.add(ref)
            for caller, module, _call in self.callers(ref):
                if caller is None or caller.qualname == "<main>":
                    stack.append(FunctionRef(module, "<module>"))
                elif caller.qualname != "<atexit>":
                    stack.append(caller)
            if enclosing:
                fact = self.function(ref)
                if fact is not None and fact.parent is not None:
                    stack.append(FunctionRef(ref.module, fact.parent))
            if more_callers:
                stack.extend(more_callers.get(ref, ()))
        return seen

    def forget_calls_that_reach_nothing(self) -> int:
        """Drop the calls no question of the model can use: those that reach no project
        function (``len(x)``, ``torch.zeros(n)``, a method of an object of unknown type),
        outside a tape and not of a Warp API a project function may replace. Two thirds of
        a large project's calls; only right when the file set is final (the facts are
        shared with later programs otherwise). Returns how many were dropped."""
        dropped = 0
        for module, facts in self.modules.items():
            for fact in facts.functions.values():
                kept = [c for c in fact.calls if self._may_reach(module, fact, c)]
                dropped += len(fact.calls) - len(kept)
                fact.calls = kept
            for name in ("module_calls", "main_calls"):
                calls = getattr(facts, name)
                kept = [c for c in calls if self._may_reach(module, None, c)]
                dropped += len(calls) - len(kept)
                setattr(facts, name, kept)
        # Their answers, all None or empty, would only be asked again by the calls just dropped.
        self._resolved_calls = {key: ref for key, ref in self._resolved_calls.items() if ref is not None}
        self._hook_targets = {key: refs for key, refs in self._hook_targets.items() if refs}
        return dropped

    def _may_reach(self, module: str, caller: FunctionFact | None, call: CallFact) -> bool:
        return call.taped or call.callee.startswith("warp.") or bool(self._call_targets(module, caller, call.callee))

    def memo(self, key: str, compute: Any) -> Any:
        """A program-wide answer (the model's or a rule's), computed once per program."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    # ------------------------------------------------------------------ lookup
    def function(self, ref: FunctionRef) -> FunctionFact | None:
        facts = self.modules.get(ref.module)
        return facts.functions.get(ref.qualname) if facts else None

    def kernel(self, ref: KernelRef) -> KernelFact:
        return self.modules[ref.module].kernels[ref.index]

    def functions(self) -> Iterator[tuple[FunctionRef, FunctionFact]]:
        for module, facts in self.modules.items():
            for qualname, fact in facts.functions.items():
                yield FunctionRef(module, qualname), fact

    def kernels(self) -> Iterator[tuple[KernelRef, KernelFact]]:
        for module, facts in self.modules.items():
            for index, kernel in enumerate(facts.kernels):
                yield KernelRef(module, index), kernel

    def resolve_dotted(self, dotted: str, depth: int = 0) -> tuple[str, str] | None:
        """A dotted, import-resolved name -> (project module, name inside it), following
        re-exports (``from .kernels import make`` in a package ``__init__``)."""
        if depth > 6:
            return None
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            facts = self.modules.get(module)
            if facts is None:
                continue
            rest = parts[cut:]
            if rest[0] in facts.aliases and rest[0] not in facts.globals:
                target = facts.aliases[rest[0]]
                if target != dotted:
                    return self.resolve_dotted(".".join([target, *rest[1:]]), depth + 1)
            if rest[0] not in facts.globals and rest[0] not in facts.aliases:
                source = self._star_source(facts, rest[0])  # ``from .ops import *`` in a package
                if source is not None:
                    return self.resolve_dotted(".".join([source, *rest]), depth + 1)
            return module, ".".join(rest)
        return None

    def _star_source(self, facts: FileFacts, name: str) -> str | None:
        """The project module one of ``facts``' ``*`` imports takes the function ``name``
        from. Functions only: classes re-exported this way (``newton.solvers.SolverX``) pull
        every example's solver calls into the model, +20 MiB on newton (over the 400 MiB
        budget) with no finding changed."""
        star = (facts.exports or {}).get("*")
        if star is None:
            return None
        for source in star.target.split(","):
            found = self.modules.get(source)
            if found is not None and source != facts.module and name in found.functions:
                return source
        return None

    def function_named(self, module: str, name: str) -> FunctionRef | None:
        """A function or a class constructor defined at the top of ``module`` (or a method
        ``Class.method``), through re-exports."""
        facts = self.modules.get(module)
        if facts is None:
            return None
        if name in facts.functions:
            return FunctionRef(module, name)
        if name in facts.classes:
            return self.method(module, name, "__init__")
        if "." in name:
            head, _, attr = name.rpartition(".")
            if head in facts.classes:
                return self.method(module, head, attr)
        first = name.split(".")[0]
        if first in facts.aliases:
            resolved = self.resolve_dotted(".".join([facts.aliases[first], *name.split(".")[1:]]))
            if resolved and resolved != (module, name):
                return self.function_named(*resolved)
        return None

    def method(self, module: str, class_name: str, method: str, depth: int = 0) -> FunctionRef | None:
        """``Class.method`` looked up through the class's project bases."""
        facts = self.modules.get(module)
        if facts is None or depth > 6:
            return None
        qualname = f"{class_name}.{method}"
        if qualname in facts.functions:
            return FunctionRef(module, qualname)
        alias = facts.method_aliases.get(qualname)  # the facts keep aliases of defined methods only
        if alias is not None:
            return FunctionRef(module, alias)
        for base in facts.classes.get(class_name, ()):
            if not base:
                continue
            if base in facts.classes:
                found = self.method(module, base, method, depth + 1)
            else:
                resolved = self.resolve_dotted(facts.aliases.get(base.split(".")[0], base) + base[len(base.split(".")[0]):])
                found = self.method(resolved[0], resolved[1], method, depth + 1) if resolved else None
            if found:
                return found
        return None

    def is_property(self, ref: FunctionRef) -> bool:
        """A method read as an attribute (``@property``, ``@functools.cached_property``)."""
        fact = self.function(ref)
        return fact is not None and any(d.rsplit(".", 1)[-1] in _PROPERTY_DECORATORS for d in fact.decorators)

    def class_of(self, ref: FunctionRef) -> str | None:
        fact = self.function(ref)
        while fact is not None and fact.class_name is None and fact.parent is not None:
            fact = self.function(FunctionRef(ref.module, fact.parent))
        return fact.class_name if fact is not None else None

    def resolve_call(self, module: str, caller: FunctionFact | None, callee: str) -> FunctionRef | None:
        """The project function a call reaches (a constructor call reaches ``__init__``)."""
        if caller is not None and not _binds(self, module, caller, callee.partition(".")[0]):
            caller = None  # resolved as at module level: one answer for every function
        key = (module, caller.qualname if caller is not None else None, callee)
        try:
            return self._resolved_calls[key]
        except KeyError:
            # Answered None while it is being resolved: ``for name, module in module.children()``
            # resolves ``module.children`` through the loop's own table, which asks again.
            self._resolved_calls[key] = None
            found = self._resolved_calls[key] = self._resolve_call(module, caller, callee)
            return found

    def _resolve_call(self, module: str, caller: FunctionFact | None, callee: str) -> FunctionRef | None:
        facts = self.modules.get(module)
        if facts is None:
            return None
        parts = callee.split(".")
        if parts[0] in ("self", "cls") and caller is not None:
            class_name = self.class_of(FunctionRef(module, caller.qualname))
            if class_name is None:
                return None
            if len(parts) == 2:
                found = self.method(module, class_name, parts[1])
                if found is not None:
                    return found
                for _where, value in self.self_attr_values(module, class_name, parts[1]):
                    cls = self._class_of_value(module, value)
                    if cls is not None:
                        return self.method(cls[0], cls[1], "__call__")
                return None
            if len(parts) == 3 and parts[2] == "__get__":  # a property read (facts: launches of self.k)
                found = self.method(module, class_name, parts[1])
                return found if found is not None and self.is_property(found) else None
            if len(parts) == 3:  # self.solver.step(): what self.solver holds
                for _where, value in self.self_attr_values(module, class_name, parts[1]):
                    cls = self._class_of_value(module, value)
                    if cls is not None:
                        return self.method(cls[0], cls[1], parts[2])
            return None
        if caller is not None:
            # A nested function, or a local holding an object: ``p = Pipeline(); p.run()``.
            scope: FunctionFact | None = caller
            while scope is not None:
                values = scope.locals.get(parts[0])
                if not values and parts[0] in scope.loop_tables:  # for layer in self.layers: layer.f()
                    values = [scope.loop_tables[parts[0]]]
                    function_of = scope.qualname
                    for value in values:
                        for item_module, item_function, item in self._picked(module, function_of, value, 0) or ():
                            cls = self._class_of_value(item_module, item, item_function)
                            if cls is not None and len(parts) == 2:
                                return self.method(cls[0], cls[1], parts[1])
                    return None
                if values:
                    for value in values:
                        if value.kind == "function" and len(parts) == 1:
                            return FunctionRef(module, value.data)
                        if len(parts) == 1:  # an object called: its __call__
                            cls = self._class_of_value(module, value)
                            if cls is not None:
                                return self.method(cls[0], cls[1], "__call__")
                        if len(parts) == 2:
                            cls = self._class_of_value(module, value)
                            if cls is not None:
                                return self.method(cls[0], cls[1], parts[1])
                    return None
                scope = self.function(FunctionRef(module, scope.parent)) if scope.parent else None
        if len(parts) == 1 or parts[0] in facts.classes or parts[0] in facts.functions:
            if parts[0] not in facts.aliases:
                found = self.function_named(module, callee)
                if found is not None or len(parts) != 1 or parts[0] not in facts.globals:
                    return found
        if len(parts) <= 2 and parts[0] in facts.globals and parts[0] not in facts.aliases:
            # An object built at module level: ``f = FIR()``, then ``f(x)`` or ``f.forward(x)``.
            for value in facts.globals[parts[0]]:
                cls = self._class_of_value(module, value)
                if cls is not None:
                    return self.method(cls[0], cls[1], parts[1] if len(parts) == 2 else "__call__")
        resolved = self.resolve_dotted(callee)
        if resolved is not None:
            return self.function_named(*resolved)
        return None

    def _class_of_value(self, module: str, value: Value, function: str | None = None) -> tuple[str, str] | None:
        """A value built by ``Class(...)``: (module, class name)."""
        if value.kind == "local":
            for item in value.items:
                found = self._class_of_value(module, item, function)
                if found:
                    return found
            return None
        if value.kind != "call" or not value.data:
            return None
        facts = self.modules.get(module)
        name = value.data
        if facts is not None and name in facts.classes:
            return module, name
        resolved = self.resolve_dotted(name)
        if resolved is not None:
            target = self.modules.get(resolved[0])
            if target is not None and resolved[1] in target.classes:
                return resolved
        return None

    def self_attr_values(self, module: str, class_name: str, attr: str) -> list[tuple[FunctionRef, Value]]:
        """(method, value) for each assignment to ``self.<attr>`` in the class's methods."""
        by_attr = self._self_attrs.get((module, class_name))
        if by_attr is None:
            by_attr = self._self_attrs[(module, class_name)] = {}
            facts = self.modules.get(module)
            prefix = class_name + "."
            for qualname, fact in facts.functions.items() if facts is not None else ():
                if qualname.startswith(prefix):
                    for name, values in fact.self_attrs.items():
                        by_attr.setdefault(name, []).extend((FunctionRef(module, qualname), v) for v in values)
        return list(by_attr.get(attr, ()))

    # ------------------------------------------------------------------ call graph
    def callers(self, ref: FunctionRef) -> list[tuple[FunctionRef | None, str, CallFact]]:
        """(calling function or None for module level, calling module, call) per call site."""
        if self._callers is None:
            self._callers = {}
            for module, facts in self.modules.items():
                for qualname, fact in facts.functions.items():
                    caller = FunctionRef(module, qualname)
                    for call in fact.calls:
                        target = self.resolve_call(module, fact, call.callee)
                        if target is not None:
                            self._callers.setdefault(target, []).append((caller, module, call))
                for call in facts.module_calls:
                    target = self.resolve_call(module, None, call.callee)
                    if target is not None:
                        self._callers.setdefault(target, []).append((None, module, call))
                for call in facts.main_calls:
                    target = self.resolve_call(module, None, call.callee)
                    if target is not None:
                        self._callers.setdefault(target, []).append((FunctionRef(module, "<main>"), module, call))
                for target_name, span in facts.atexit_targets:
                    target = self.resolve_call(module, None, target_name)
                    if target is not None:
                        call = CallFact(target_name, (), {}, span, 0, 0, False)
                        self._callers.setdefault(target, []).append((FunctionRef(module, "<atexit>"), module, call))
        return self._callers.get(ref, [])

    def frequency(self, ref: FunctionRef, _depth: int = 0) -> Frequency:
        """How often ``ref``'s body runs, and why (the call path that decides it)."""
        if ref.qualname == "<main>":
            return Frequency(Freq.ONCE, "the script's `__main__` block")
        if ref.qualname == "<atexit>":
            return Frequency(Freq.ONCE, "at exit")
        if _depth > MAX_DEPTH:
            return self._queries.cut(_RECURSION)
        fact = self.function(ref)
        if fact is None:
            return Frequency(Freq.UNCALLED, "")
        return self._queries.ask(("frequency", ref), None, lambda: self._frequency(ref, fact, _depth + 1), _RECURSION)

    def _frequency(self, ref: FunctionRef, fact: FunctionFact, depth: int) -> Frequency:
        label = f"`{fact.qualname}()`"
        if fact.parent is not None and fact.class_name is None:
            # A nested function runs when its parent runs it (or returns it to a caller).
            parent = FunctionRef(ref.module, fact.parent)
            sites = self.callers(ref)
            if not sites:
                return self.frequency(parent, depth)
        best: Frequency | None = None
        in_tests = is_test_path(self.modules[ref.module].path)
        for caller, module, call in self.callers(ref):
            if not in_tests and is_test_path(self.modules[module].path):
                continue  # tests drive an API their own way: not how the program runs it
            where = f"line {call.span[0]}" if module == ref.module else f"`{module}` line {call.span[0]}"
            if caller is None:
                if call.loop_depth:
                    many = Freq.HOT if self._loop_launches(module, None, ref) else Freq.UP_FRONT
                    site = Frequency(many, f"called in a loop at import, {where}")
                else:
                    site = Frequency(Freq.IMPORT, f"called at import, {where}")
            else:
                outer = self.frequency(caller, depth)
                caller_label = f"`{caller.qualname}()`" if caller.qualname != "<main>" else "the `__main__` block"
                if call.cache_guarded:
                    site = Frequency(Freq.ONCE, f"called only when its inputs change, in {caller_label}")
                elif caller.qualname not in ("<main>", "<atexit>") and self.memoized(caller):
                    site = Frequency(Freq.ONCE, f"called from the memoized {caller_label}: once per key")
                elif outer.freq == Freq.HOT:
                    site = Frequency(Freq.HOT, f"called from {caller_label}, {where}; {outer.why}")
                elif call.loop_depth and outer.freq != Freq.UNCALLED:
                    caller_fact = self.function(caller)
                    # A loop that passes its own variable makes one variant per value
                    # (``for level in levels: make(level)``): each is needed once. A loop
                    # that builds objects (``for ...: Layer(...)``) is setting up, even when
                    # the constructors launch initialisation kernels.
                    varies = _passes_loop_variable(call) or fact.name == "__init__"
                    many = Freq.HOT if not varies and self._loop_launches(module, caller_fact, ref) else Freq.UP_FRONT
                    site = Frequency(max(many, outer.freq), f"called in a loop in {caller_label}, {where}")
                elif outer.freq == Freq.UNCALLED:
                    site = Frequency(Freq.UNCALLED, outer.why)
                elif outer.freq == Freq.UP_FRONT:
                    # Whatever a setting-up loop runs is part of the set-up.
                    site = Frequency(Freq.UP_FRONT, f"called from {caller_label}, {where}; {outer.why}")
                else:
                    site = Frequency(outer.freq, f"called from {caller_label}, {where}")
            if best is None or site.freq > best.freq:
                best = site
        # The name speaks only where the linted code does not show the callers: a step()
        # that the project calls once is called once.
        intrinsic = self._intrinsic(fact, label)
        if intrinsic is not None and (best is None or best.freq == Freq.UNCALLED):
            return intrinsic
        if best is None:
            return Frequency(Freq.UNCALLED, f"{label} is not called in the linted code")
        return best

    def _launches(self, ref: FunctionRef) -> bool:
        """Whether running ``ref`` launches or loads Warp code (itself or through callees)."""
        return ref in self.memo("loading flows", self._loading_flows) or any(
            launch.function == ref.qualname for launch in self.modules[ref.module].launches
        )

    def _loading_flows(self) -> set[FunctionRef]:
        """The functions and module bodies whose run loads a known Warp module, themselves or
        through callees: the flows whose ``effects`` hold a load, found from the loads back
        along the call graph (instead of inlining every flow's events to look)."""
        patched_callers: dict[FunctionRef, list[FunctionRef]] = {}  # ``wp.sim.collide = collide``
        patching = any(facts.patches for facts in self.modules.values())
        for module, facts in self.modules.items() if patching else ():
            for qualname, fact in (*facts.functions.items(), ("<module>", None)):
                calls = fact.calls if fact is not None else facts.module_calls + facts.main_calls
                for call in calls:
                    if call.callee.startswith("warp.") and self.resolve_call(module, fact, call.callee) is None:
                        target = self._patched(call.callee)
                        if target is not None:
                            patched_callers.setdefault(target, []).append(FunctionRef(module, qualname))
        loaders = [
            FunctionRef(module, qualname if qualname is not None else "<module>")
            for module in self.modules
            for qualname, items in self._own_events(module).items()
            if any(event.kind == "load" for _order, events in items for event in events)
        ]
        return self._callers_closure(loaders, enclosing=False, more_callers=patched_callers)

    def _loop_launches(self, module: str, caller: FunctionFact | None, callee: FunctionRef) -> bool:
        """A loop that calls ``callee`` also launches: the callee runs between launches
        (a step loop), not while making things up front."""
        facts = self.modules.get(module)
        if facts is None:
            return True
        qualname = caller.qualname if caller is not None else None
        if any(launch.function == qualname and launch.loop_depth for launch in facts.launches):
            return True
        if self._launches(callee):
            return True
        calls = caller.calls if caller is not None else facts.module_calls + facts.main_calls
        for call in calls:
            if not call.loop_depth:
                continue
            target = self.resolve_call(module, caller, call.callee)
            if target is not None and target != callee and self._launches(target):
                return True
        return False

    @staticmethod
    def _intrinsic(fact: FunctionFact, label: str) -> Frequency | None:
        """What a function's name says about how often it runs, when callers are not linted."""
        name = fact.name
        if name in HOT_NAMES or name.startswith(_HOT_PREFIXES):
            return Frequency(Freq.HOT, f"{label} runs on every call")
        if name == "__init__":
            return Frequency(Freq.PER_OBJECT, f"{label} runs once per object")
        if name in ONCE_NAMES or name.startswith(_ONCE_PREFIXES):
            return Frequency(Freq.ONCE, f"{label} runs once")
        return None

    def memoized(self, ref: FunctionRef) -> bool:
        """The function keeps what it makes, or every path to it goes through one that does."""
        fact = self.function(ref)
        if fact is None:
            return False
        if fact.memoizes or any(self._is_memo_decorator(ref.module, d) for d in fact.decorators):
            return True
        if fact.parent is not None:
            return self.memoized(FunctionRef(ref.module, fact.parent))
        return False

    def _is_memo_decorator(self, module: str, decorator: str) -> bool:
        """A project decorator that caches results in a dict (its wrapper caches inline)."""
        if not decorator:
            return False
        target = self.resolve_call(module, None, decorator)
        if target is None:
            return False
        fact = self.function(target)
        if fact is None:
            return False
        if fact.memoizes:
            return True
        prefix = target.qualname + ".<locals>."
        facts = self.modules[target.module]
        return any(q.startswith(prefix) and f.memoizes for q, f in facts.functions.items())

    # ------------------------------------------------------------------ values
    def resolve(self, module: str, function: str | None, value: Value | None, depth: int = 0) -> list[Any]:
        """The concrete values ``value`` can take (constants); ``UNRESOLVED`` among them
        when some path is unknown."""
        if value is None:
            return [UNRESOLVED]
        if depth > MAX_DEPTH:
            return list(self._queries.cut(_UNRESOLVED_ONLY))
        return list(self._queries.ask(("resolve", module, function, id(value)), value,
                                      lambda: self._resolve_distinct(module, function, value, depth + 1),
                                      _UNRESOLVED_ONLY))  # fmt: skip

    def _resolve_distinct(self, module: str, function: str | None, value: Value, depth: int) -> tuple[Any, ...]:
        unique: list[Any] = []
        for item in self._resolve(module, function, value, depth):
            if not any(item is u or (type(item) is type(u) and item == u) for u in unique):
                unique.append(item)
        return tuple(unique)

    def _resolve(self, module: str, function: str | None, value: Value, depth: int) -> list[Any]:
        kind = value.kind
        if kind == "const":
            return [value.data]
        if kind == "local":
            out = []
            for item in value.items:
                out.extend(self.resolve(module, function, item, depth))
            return out or [UNRESOLVED]
        if kind == "param":
            return self.param_values(FunctionRef(module, function), value.data, depth) if function else [UNRESOLVED]
        if kind == "name":
            named = value.data.removesuffix(".__name__")
            if named != value.data and named in self.modules:
                return [named]  # ``diagnostics.__name__`` of an imported module
            return self._global_values(module, value.data, depth)
        if kind == "attr" and value.items and value.items[0].kind == "self" and function:
            class_name = self.class_of(FunctionRef(module, function))
            if class_name is None:
                return [UNRESOLVED]
            out = []
            for where, item in self.self_attr_values(module, class_name, value.data):
                out.extend(self.resolve(where.module, where.qualname, item, depth))
            return out or [UNRESOLVED]
        if kind == "tuple":
            # Unknown items stay in place: ``(kernel, 64)`` still says 64 at index 1.
            parts = [self.resolve(module, function, item, depth) for item in value.items]
            return [tuple(p[0] if len(p) == 1 else UNRESOLVED for p in parts)]
        if kind == "sub":
            if len(value.items) == 2:
                bases = self.resolve(module, function, value.items[0], depth)
                indices = self.resolve(module, function, value.items[1], depth)
                out = []
                for base in bases:
                    for index in indices:
                        try:
                            out.append(base[index] if base is not UNRESOLVED and index is not UNRESOLVED else UNRESOLVED)
                        except (TypeError, IndexError, KeyError):
                            out.append(UNRESOLVED)
                return out or [UNRESOLVED]
            return [UNRESOLVED]
        if kind == "elem":
            out = []
            for iterable in self.resolve(module, function, value.items[0], depth):
                if isinstance(iterable, (tuple, list)):
                    out.extend(iterable)
                elif isinstance(iterable, range):
                    out.extend(iterable)
                else:
                    out.append(UNRESOLVED)
            return out or [UNRESOLVED]
        if kind == "choice":
            out = []
            for item in value.items:
                out.extend(self.resolve(module, function, item, depth))
            return out
        if kind == "call":
            convert = _CONVERSIONS.get(value.data)
            if convert is not None and len(value.items) == 1:
                out = []
                for item in self.resolve(module, function, value.items[0], depth):
                    try:
                        out.append(UNRESOLVED if item is UNRESOLVED else convert(item))
                    except (TypeError, ValueError):
                        out.append(UNRESOLVED)
                return out
            if value.data == "range" and value.items:
                bounds = [self.resolve(module, function, item, depth) for item in value.items if item.kind != "kw"]
                if all(len(b) == 1 and isinstance(b[0], int) for b in bounds):
                    return [range(*[b[0] for b in bounds])]
            return [UNRESOLVED]
        if kind == "binop":
            left = self.resolve(module, function, value.items[0], depth)
            right = self.resolve(module, function, value.items[1], depth)
            if len(left) == 1 and len(right) == 1 and isinstance(left[0], (int, float)) and isinstance(right[0], (int, float)):
                import operator

                ops = {"Add": operator.add, "Sub": operator.sub, "Mult": operator.mul, "FloorDiv": operator.floordiv,
                       "Pow": operator.pow, "LShift": operator.lshift}  # fmt: skip
                op = ops.get(value.data)
                if op is not None:
                    try:
                        return [op(left[0], right[0])]
                    except (ArithmeticError, ValueError):
                        return [UNRESOLVED]
            return [UNRESOLVED]
        return [UNRESOLVED]

    def _global_values(self, module: str, dotted: str, depth: int) -> list[Any]:
        facts = self.modules.get(module)
        if facts is not None and dotted in facts.globals:
            values = facts.globals[dotted]
            if len(values) == 1:
                return self.resolve(module, None, values[0], depth)
            return [UNRESOLVED]
        resolved = self.resolve_dotted(dotted)
        if resolved is not None and resolved[0] != module or (resolved and resolved[1] != dotted):
            target = self.modules.get(resolved[0])
            if target is not None and resolved[1] in target.globals and len(target.globals[resolved[1]]) == 1:
                return self.resolve(resolved[0], None, target.globals[resolved[1]][0], depth)
        return [UNRESOLVED]

    def param_values(self, ref: FunctionRef, param: str, depth: int = 0) -> list[Any]:
        """A parameter's values over every call site in the project (its default where a
        call omits it; unknown where a call passes ``*args``)."""
        fact = self.function(ref)
        if fact is None or param not in fact.params:
            return [UNRESOLVED]
        index = _positional_index(fact, param)
        out: list[Any] = []
        sites = self.callers(ref)
        for caller, module, call in sites:
            caller_name = caller.qualname if caller is not None and caller.qualname not in ("<main>", "<atexit>") else None
            if param in call.kwargs:
                out.extend(self.resolve(module, caller_name, call.kwargs[param], depth))
            elif 0 <= index < len(call.args):
                out.extend(self.resolve(module, caller_name, call.args[index], depth))
            elif call.passes_star:
                out.append(UNRESOLVED)
            elif param in fact.defaults:
                out.extend(self.resolve(ref.module, None, fact.defaults[param], depth))
            else:
                out.append(UNRESOLVED)
        if not sites:
            if param in fact.defaults:
                out.extend(self.resolve(ref.module, None, fact.defaults[param], depth))
            else:
                out.append(UNRESOLVED)
        return out

    def capture_varies(self, ref: FunctionRef, name: str) -> bool:
        """Whether the value a kernel defined in ``ref`` captures as ``name`` (a parameter, a
        loop variable, a local) can differ from one definition to the next: each new value
        is a new kernel hash. A helper ``@wp.func`` defined beside it is source, not data."""
        fact = self.function(ref)
        if fact is None:
            return False
        if name in fact.params:
            return self.varies(ref.module, ref.qualname, Value("param", name))
        if name in fact.loop_tables:
            return self.varies(ref.module, ref.qualname, fact.loop_tables[name])
        values = [v for v in fact.locals.get(name, ()) if v.kind not in ("kernel", "function")]
        return any(self.varies(ref.module, ref.qualname, v) for v in values)

    def varies(self, module: str, function: str | None, value: Value, depth: int = 0) -> bool:
        """Whether an expression can take different values between calls: two known values,
        or an unknown one that comes from a loop variable or a call result. An attribute of
        a settings object (``cfg.gain``) or a name the model cannot follow is taken as
        fixed for the run: such values rarely change between steps."""
        if depth > MAX_DEPTH:
            return self._queries.cut(False)
        return self._queries.ask(("varies", module, function, id(value)), value,
                                 lambda: self._varies(module, function, value, depth), False)  # fmt: skip

    def _varies(self, module: str, function: str | None, value: Value, depth: int) -> bool:
        known = self.resolve(module, function, value)
        concrete = [v for v in known if v is not UNRESOLVED]
        if len({repr(v) for v in concrete}) > 1:
            return True
        if len(concrete) == len(known):
            return False
        kind = value.kind
        if kind in ("elem", "changed"):
            return True
        if kind == "attr" and value.items and value.items[0].kind == "self" and function is not None:
            class_name = self.class_of(FunctionRef(module, function))
            assigned = self.self_attr_values(module, class_name, value.data) if class_name else []
            # ``self.scale = self.scale * 0.5`` in a method: each call moves the value on.
            if any(_reads_self_attr(item, value.data) for _where, item in assigned):
                return True
            return any(self.varies(where.module, where.qualname, item, depth + 1) for where, item in assigned)
        if kind == "param" and function is not None:
            ref = FunctionRef(module, function)
            if self.function(ref) is None:
                return False
            if not self.callers(ref):
                return True  # callers outside the linted code may pass anything
            for caller_module, caller_name, call, arg in self.arguments_for(ref, value.data):
                if arg is None:
                    continue
                if call.loop_depth and arg.kind != "const" or self.varies(caller_module, caller_name, arg, depth + 1):
                    return True
            return False
        if kind == "local":
            return any(self.varies(module, function, item, depth + 1) for item in value.items)
        if kind in ("binop", "tuple", "choice", "sub"):
            return any(self.varies(module, function, item, depth + 1) for item in value.items)
        if kind == "call":
            if value.data in ("int", "float", "str", "bool", "range", "len"):
                return any(self.varies(module, function, item, depth + 1) for item in value.items)
            return True  # time.time(), random...: a fresh value each call
        return False

    def array_dtypes(self, module: str, function: str | None, value: Value, depth: int = 0) -> set[str]:
        """The dtypes (as dotted names, "?" when unknown) an array argument can have:
        ``wp.zeros(n, dtype=D)``, ``wp.empty_like(x)``, through locals, loop tables and the
        call sites of parameters."""
        # A parameter's dtypes fan out over every call site, recursively: memoized.
        if depth > MAX_DEPTH:
            return set(self._queries.cut(_UNKNOWN_DTYPE))
        return set(self._queries.ask(("dtypes", module, function, id(value)), value,
                                     lambda: frozenset(self._array_dtypes(module, function, value, depth)),
                                     _UNKNOWN_DTYPE))  # fmt: skip

    def _array_dtypes(self, module: str, function: str | None, value: Value, depth: int) -> set[str]:
        kind = value.kind
        if kind == "name":
            if value.data.startswith(("warp.", "numpy.")):
                return {_canonical_dtype(value.data)}
            if value.data in _PYTHON_DTYPES:  # ``wp.array(..., dtype=float)``
                return {_PYTHON_DTYPES[value.data]}
            facts = self.modules.get(module)
            if facts is not None and len(facts.globals.get(value.data, ())) == 1:
                return self.array_dtypes(module, None, facts.globals[value.data][0], depth + 1)
            return {"?"}
        if kind == "local":
            out: set[str] = set()
            for item in value.items:
                out |= self.array_dtypes(module, function, item, depth + 1)
            return out or {"?"}
        if kind in ("elem", "sub"):
            picked = self._picked(module, function, value, depth + 1)
            if picked is None:
                return {"?"}
            out = set()
            for item_module, item_function, item in picked:
                out |= self.array_dtypes(item_module, item_function, item, depth + 1)
            return out or {"?"}
        if kind == "attr" and value.items and value.items[0].kind == "self" and function is not None:
            class_name = self.class_of(FunctionRef(module, function))
            out = set()
            for where, item in self.self_attr_values(module, class_name, value.data) if class_name else ():
                out |= self.array_dtypes(where.module, where.qualname, item, depth + 1)
            return out or {"?"}
        if kind == "param" and function is not None:
            ref = FunctionRef(module, function)
            fact = self.function(ref)
            if fact is None or value.data not in fact.params:
                return {"?"}
            out = set()
            for caller_module, caller_name, _call, arg in self.arguments_for(ref, value.data):
                out |= self.array_dtypes(caller_module, caller_name, arg, depth + 1) if arg is not None else {"?"}
            return out or {"?"}
        if kind == "call":
            keywords = {item.data: item.items[0] for item in value.items if item.kind == "kw"}
            positional = [item for item in value.items if item.kind != "kw"]
            if "dtype" in keywords:
                return self.array_dtypes(module, function, keywords["dtype"], depth + 1)
            if value.data.endswith("_like") and positional:
                return self.array_dtypes(module, function, positional[0], depth + 1)
            if value.data in ("warp.array", "warp.from_numpy") and positional:
                return self.array_dtypes(module, function, positional[0], depth + 1)
            # A project function's result, when it has one ``return`` (``g = wp.empty(...,
            # dtype=wp.vec2); return g``). Several returns are a dispatch on the input (Warp's
            # ``type_scalar_type``): their union is no set of dtypes one call meets.
            caller = self.function(FunctionRef(module, function)) if function is not None else None
            target = self.resolve_call(module, caller, value.data) if value.data else None
            fact = self.function(target) if target is not None else None
            if fact is not None and len(fact.returns) == 1:
                return self.array_dtypes(target.module, target.qualname, fact.returns[0], depth + 1)  # type: ignore[union-attr]
        return {"?"}

    def default_decides(self, ref: FunctionRef, param: str) -> bool:
        """True when no call site in the project passes ``param``: its default is its value."""
        fact = self.function(ref)
        if fact is None or param not in fact.defaults:
            return False
        index = _positional_index(fact, param)
        for _caller, _module, call in self.callers(ref):
            if param in call.kwargs or index < len(call.args) or call.passes_star:
                return False
        return True

    # ------------------------------------------------------------------ Warp modules
    def kernel_modules(self, ref: KernelRef) -> list[Any]:
        """The Warp module identities a kernel can land in: the module name, or
        ``("unique", kernel name)``; UNRESOLVED when unknown."""
        kernel = self.kernel(ref)
        facts = self.modules[ref.module]
        if kernel.module is None:
            return [facts.module]
        out = []
        for value in self.resolve(ref.module, kernel.function, kernel.module):
            if value is None:
                out.append(facts.module)
            elif value == UNIQUE:
                out.append((UNIQUE, ref.module, kernel.name))
            elif isinstance(value, str):
                out.append(value)
            else:
                out.append(UNRESOLVED)
        if kernel.module.kind == "name" and kernel.module.data == "__name__":
            return [facts.module]
        return out or [UNRESOLVED]

    def kernels_of_value(self, module: str, function: str | None, value: Value, depth: int = 0) -> list[KernelRef | Any]:
        """The kernels an expression can evaluate to (UNRESOLVED among them when unknown)."""
        if depth > MAX_DEPTH:
            return list(self._queries.cut(_UNRESOLVED_ONLY))
        return list(self._queries.ask(("kernels", module, function, id(value)), value,
                                      lambda: tuple(dict.fromkeys(self._kernels_of_value(module, function, value, depth))),
                                      _UNRESOLVED_ONLY))  # fmt: skip

    def _kernels_of_value(self, module: str, function: str | None, value: Value, depth: int) -> list[KernelRef | Any]:
        facts = self.modules.get(module)
        if facts is None:
            return [UNRESOLVED]
        kind = value.kind
        if kind == "kernel":
            for index, kernel in enumerate(facts.kernels):
                if kernel.name == value.data and kernel.function == function:
                    return [KernelRef(module, index)]
            for index, kernel in enumerate(facts.kernels):
                if kernel.name == value.data:
                    return [KernelRef(module, index)]
            return [UNRESOLVED]
        if kind == "local":
            out = []
            for item in value.items:
                out.extend(self.kernels_of_value(module, function, item, depth + 1))
            return out or [UNRESOLVED]
        if kind == "name":
            if value.data in facts.globals:
                out = []
                for item in facts.globals[value.data]:
                    out.extend(self.kernels_of_value(module, None, item, depth + 1))
                return out or [UNRESOLVED]
            resolved = self.resolve_dotted(value.data)
            if resolved is not None and resolved[0] in self.modules and resolved != (module, value.data):
                return self.kernels_of_value(resolved[0], None, Value("name", resolved[1]), depth + 1)
            return [UNRESOLVED]
        if kind == "call":
            target = self.resolve_call(module, self.function(FunctionRef(module, function)) if function else None, value.data)
            if target is None:
                return [UNRESOLVED]
            fact = self.function(target)
            out = []
            for returned in fact.returns if fact else ():
                if returned.kind == "param":  # ``set_name(kernel, ...)`` hands its argument back
                    argument = _argument_for(fact, value, returned.data)
                    if argument is not None:
                        out.extend(self.kernels_of_value(module, function, argument, depth + 1))
                        continue
                out.extend(self.kernels_of_value(target.module, target.qualname, returned, depth + 1))
            return out or [UNRESOLVED]
        if kind == "attr" and value.items and value.items[0].kind == "self" and function:
            class_name = self.class_of(FunctionRef(module, function))
            out = []
            if class_name is not None:
                for where, item in self.self_attr_values(module, class_name, value.data):
                    out.extend(self.kernels_of_value(where.module, where.qualname, item, depth + 1))
                getter = self.method(module, class_name, value.data)
                if getter is not None and self.is_property(getter):  # what the property returns
                    for returned in self.function(getter).returns:  # type: ignore[union-attr]
                        out.extend(self.kernels_of_value(getter.module, getter.qualname, returned, depth + 1))
            return out or [UNRESOLVED]
        if kind in ("sub", "elem") and value.items:
            picked = self._picked(module, function, value, depth + 1)
            if picked is not None:
                out = []
                for item_module, item_function, item in picked:
                    out.extend(self.kernels_of_value(item_module, item_function, item, depth + 1))
                return out or [UNRESOLVED]
            return self._kernels_in_container(module, function, value.items[0], depth + 1)
        if kind == "const":
            return []  # a number beside a kernel in a table row: not a kernel
        if kind == "choice":  # ``_kernel_2d if ndim == 2 else _kernel_1d``
            out = []
            for item in value.items:
                out.extend(self.kernels_of_value(module, function, item, depth + 1))
            return out or [UNRESOLVED]
        if kind == "tuple":
            out = []
            for item in value.items:
                out.extend(self.kernels_of_value(module, function, item, depth + 1))
            return out or [UNRESOLVED]
        if kind == "dict":
            half = len(value.items) // 2
            out = []
            for item in value.items[half:]:
                out.extend(self.kernels_of_value(module, function, item, depth + 1))
            return out or [UNRESOLVED]
        return [UNRESOLVED]

    def _elements(self, module: str, function: str | None, value: Value, depth: int) -> list[tuple[str, str | None, Value]] | None:
        """The element expressions of a tuple/list/dict expression, through names, with the
        module and function they are written in; None when they cannot be told."""
        if depth > MAX_DEPTH:
            return self._queries.cut(None)
        found = self._queries.ask(("elements", module, function, id(value)), value,
                                  lambda: self._elements_of(module, function, value, depth), None)
        return list(found) if found is not None else None

    def _elements_of(self, module: str, function: str | None, value: Value, depth: int) -> tuple[tuple[str, str | None, Value], ...] | None:
        found = self._table_elements(module, function, value, depth)
        return tuple(found) if found is not None else None

    def _table_elements(self, module: str, function: str | None, value: Value, depth: int) -> list[tuple[str, str | None, Value]] | None:
        facts = self.modules.get(module)
        if value.kind == "tuple":
            return [(module, function, item) for item in value.items]
        if value.kind == "dict":
            return [(module, function, item) for item in value.items[len(value.items) // 2:]]
        if value.kind == "name" and facts is not None and len(facts.globals.get(value.data, ())) == 1:
            return self._elements(module, None, facts.globals[value.data][0], depth + 1)
        if value.kind == "name" and facts is not None and value.data not in facts.globals:
            resolved = self.resolve_dotted(value.data)  # a table imported from another module
            if resolved is not None and resolved[0] != module:
                return self._elements(resolved[0], None, Value("name", resolved[1]), depth + 1)
        if value.kind == "local" and len(value.items) == 1:
            return self._elements(module, function, value.items[0], depth + 1)
        if value.kind == "attr" and value.items and value.items[0].kind == "self" and function is not None:
            class_name = self.class_of(FunctionRef(module, function))
            out: list[tuple[str, str | None, Value]] = []
            for where, item in self.self_attr_values(module, class_name, value.data) if class_name else ():
                found = self._elements(where.module, where.qualname, item, depth + 1)
                if found is None:
                    return None
                out.extend(found)
            return out or None
        if value.kind == "call" and value.data in ("list", "tuple") and len(value.items) == 1 and value.items[0].kind != "kw":
            return self._elements(module, function, value.items[0], depth + 1)  # ``list(DEFAULT_TERMS)``: a copy
        if value.kind == "call":  # ``a, b = make()``: what the one return statement builds
            target = self.resolve_call(module, self.function(FunctionRef(module, function)) if function else None, value.data)
            fact = self.function(target) if target is not None else None
            if fact is not None and len(fact.returns) == 1:
                return self._elements(target.module, target.qualname, fact.returns[0], depth + 1)
            return None
        if value.kind == "param" and function is not None:
            ref = FunctionRef(module, function)
            fact = self.function(ref)
            if fact is not None and self.default_decides(ref, value.data):
                return self._elements(module, None, fact.defaults[value.data], depth + 1)
            # ``run_stages(field, self.stages)``: what every call site passes, when each says.
            out = []
            for caller_module, caller_name, _call, arg in self.arguments_for(ref, value.data):
                passed = fact.defaults.get(value.data) if arg is None else arg  # type: ignore[union-attr]
                found = (self._elements(caller_module if arg is not None else module,
                                        caller_name if arg is not None else None, passed, depth + 1)
                         if passed is not None else None)  # fmt: skip
                if found is None:
                    return None
                out.extend(found)
            return out or None
        return None

    def _picked(self, module: str, function: str | None, value: Value, depth: int) -> list[tuple[str, str | None, Value]] | None:
        """What ``base[i]`` (``sub``) or a loop element (``elem``) can be, structurally:
        ``for kernel, dim in STAGES`` -> the first item of every row of STAGES."""
        if value.kind == "elem":
            return self._elements(module, function, value.items[0], depth)
        if value.kind != "sub" or len(value.items) != 2:
            return None
        base, index = value.items
        if index.kind != "const" or not isinstance(index.data, int):
            return None
        if base.kind == "elem" and base.items and base.items[0].kind == "call" and base.items[0].data in ("enumerate", "zip"):
            # ``for i, layer in enumerate(layers)`` / ``for a, b in zip(xs, ys)``
            arguments = [item for item in base.items[0].items if item.kind != "kw"]
            position = index.data - 1 if base.items[0].data == "enumerate" else index.data
            if position < 0 or position >= len(arguments):
                return None
            return self._elements(module, function, arguments[position], depth + 1)
        rows = self._picked(module, function, base, depth + 1) if base.kind in ("sub", "elem") else None
        if rows is None:
            rows_of = self._elements(module, function, base, depth + 1)
            if rows_of is None:
                return None
            return [rows_of[index.data]] if -len(rows_of) <= index.data < len(rows_of) else None
        out = []
        for row_module, row_function, row in rows:
            items = self._elements(row_module, row_function, row, depth + 1)
            if items is None or not -len(items) <= index.data < len(items):
                return None
            out.append(items[index.data])
        return out

    def _kernels_in_container(self, module: str, function: str | None, container: Value, depth: int) -> list[Any]:
        """Kernels held by a tuple/list/dict expression (``kernels[dtype]``, a stage table)."""
        if container.kind == "sub" and container.items:  # table[i][0]: the table's kernels
            return self._kernels_in_container(module, function, container.items[0], depth + 1)
        if container.kind == "elem" and container.items:
            return self._kernels_in_container(module, function, container.items[0], depth + 1)
        return self.kernels_of_value(module, function, container, depth)

    def launch_kernels(self, module: str, index: int) -> tuple[KernelRef | Any, ...]:
        key = (module, index)
        cached = self._launch_kernels.get(key)
        if cached is None:
            launch = self.modules[module].launches[index]
            found = self.kernels_of_value(module, launch.function, launch.kernel)
            cached = self._launch_kernels[key] = tuple(dict.fromkeys(found))
        return cached

    def launchers_of(self, kernel_module: str) -> frozenset[str]:
        """The Python modules with a launch the model resolves to a kernel defined in
        ``kernel_module``: by name, and picked from a dict, a tuple, an attribute or a
        parameter (``wp.launch(self.kernels.forward, ...)``, ``run(kernel=k)``)."""
        return self.memo("program.launchers", self._launchers).get(kernel_module, frozenset())

    def _launchers(self) -> dict[str, frozenset[str]]:
        found: dict[str, set[str]] = {}
        for module, facts in self.modules.items():
            for index, launch in enumerate(facts.launches):
                if not launch.kind.startswith("launch"):
                    continue
                refs: list[Any] = list(self.launch_kernels(module, index))
                if launch.kernel.kind == "param":  # a launching helper: ``def _launch(kernel, x)``
                    refs.extend(self._kernels_passed_for(module, launch.function, launch.kernel.data))
                for ref in refs:
                    if isinstance(ref, KernelRef):
                        found.setdefault(ref.module, set()).add(module)
        return {kernel_module: frozenset(modules) for kernel_module, modules in found.items()}

    def arguments_for(self, ref: FunctionRef, param: str) -> Iterator[tuple[str, str | None, CallFact, Value | None]]:
        """(caller module, caller qualname or None at module level, call, the argument it
        passes for ``param`` or None) for each call site of ``ref``."""
        fact = self.function(ref)
        if fact is None or param not in fact.params:
            return
        for caller, caller_module, call in self.callers(ref):
            arg = argument_passed(fact, call, param)
            caller_name = caller.qualname if caller is not None and caller.qualname not in ("<main>", "<atexit>") else None
            yield caller_module, caller_name, call, arg

    def _kernels_passed_for(self, module: str, function: str | None, param: str, depth: int = 0) -> list[Any]:
        """The kernels the callers of ``function`` pass for its parameter ``param``, through
        helpers that hand it on (a few levels)."""
        if function is None:
            return []
        if depth > 3:
            return list(self._queries.cut(()))
        return list(self._queries.ask(("passed kernels", module, function, param), None,
                                      lambda: tuple(self._kernels_passed(module, function, param, depth)), ()))

    def _kernels_passed(self, module: str, function: str, param: str, depth: int) -> list[Any]:
        out: list[Any] = []
        for caller_module, caller_name, _call, arg in self.arguments_for(FunctionRef(module, function), param):
            if arg is None:
                continue
            if arg.kind == "param":
                out.extend(self._kernels_passed_for(caller_module, caller_name, arg.data, depth + 1))
            else:
                out.extend(self.kernels_of_value(caller_module, caller_name, arg))
        return out

    def launch_modules(self, module: str, index: int) -> list[Any]:
        """The Warp modules a launch/load can build (UNRESOLVED among them when unknown)."""
        launch = self.modules[module].launches[index]
        if launch.kind in ("launch", "launch_tiled", "block_size_query"):
            out = []
            for ref in self.launch_kernels(module, index):
                out.extend(self.kernel_modules(ref) if isinstance(ref, KernelRef) else [UNRESOLVED])
            return out
        if launch.kind == "load_module" and launch.target is not None:
            values = self.resolve(module, launch.function, launch.target)
            return [v if isinstance(v, str) else UNRESOLVED for v in values]
        return [UNRESOLVED]

    def option_target(self, module: str, option: OptionFact) -> list[Any]:
        """The Warp modules an option change concerns (``*config*`` for ``wp.config``)."""
        if option.kind == "config":
            return ["*config*"]
        if option.target is None:
            return [module]
        if option.target.kind == "name" and option.target.data == "__name__":
            return [module]
        out = []
        for value in self.resolve(module, option.function, option.target):
            out.append(value if isinstance(value, str) else UNRESOLVED)
        if option.target.kind == "name" and option.target.data in self.modules:  # a module object
            return [option.target.data]
        return out

    # ------------------------------------------------------------------ differentiation
    def differentiated(self) -> tuple[set[str], bool]:
        """(Warp modules whose kernels something differentiates: launched on a ``wp.Tape``,
        directly or through calls made inside the tape block, or with ``adjoint=True``;
        whether some taped launch reaches kernels the model cannot name)."""
        return self.memo("program.differentiated", self._differentiated)

    def _differentiated(self) -> tuple[set[str], bool]:
        modules: set[str] = set()
        opaque: set[str] = set()  # Python modules with a tape over something the model cannot name
        unnamed = self._reaching_unnamed_launches()
        for module, facts in self.modules.items():
            for index, launch in enumerate(facts.launches):
                adjoint = launch.adjoint is not None and launch.adjoint != Value("const", False)
                if not (launch.taped or adjoint) or not launch.kind.startswith("launch"):
                    continue
                targets = self.launch_modules(module, index)
                if any(t is UNRESOLVED for t in targets):
                    opaque.add(module)
                modules.update(_module_key(t) for t in targets if t is not UNRESOLVED)
            scopes = [(fact, fact.calls) for fact in facts.functions.values()]
            scopes.append((None, facts.module_calls + facts.main_calls))
            for fact, calls in scopes:
                for call in calls:
                    if not call.taped:
                        continue
                    target = self.resolve_call(module, fact, call.callee) or self._patched(call.callee)
                    targets = [target] if target is not None else []
                    if target is None:
                        if _harmless_in_tape(call.callee):
                            continue
                        opaque.add(module)
                        # ``self.policy.act(x)`` on an object of unknown type may run any
                        # project method of that name: what those launch is differentiated.
                        if "." in call.callee:
                            targets = self._methods_named(call.callee.rsplit(".", 1)[1])
                    for target in targets:
                        if target in unnamed:
                            opaque.add(module)
                        for event in self.effects(target):
                            if event.kind == "load":
                                modules.update(event.warp_modules)
        return (modules, opaque)

    def _methods_named(self, name: str) -> Sequence[FunctionRef]:
        index = self.memo("program.methods_by_name", self._methods_by_name)
        return index.get(name, _NO_TARGETS)

    def _methods_by_name(self) -> dict[str, list[FunctionRef]]:
        index: dict[str, list[FunctionRef]] = {}
        for ref, fact in self.functions():
            if fact.class_name is not None and fact.parent is None:
                index.setdefault(fact.name, []).append(ref)
        return index

    def _reaching_unnamed_launches(self) -> set[FunctionRef]:
        """The functions whose run can reach a launch of a kernel the model cannot name (a
        helper launching the kernel it is handed: ``def _launch(kernel, x)``)."""
        unnamed = set()
        for module, facts in self.modules.items():
            for index, launch in enumerate(facts.launches):
                if launch.function is not None and launch.kind.startswith("launch") and any(
                    t is UNRESOLVED for t in self.launch_modules(module, index)
                ):
                    unnamed.add(FunctionRef(module, launch.function))
        return self.reaching(unnamed) if unnamed else set()

    def _patched(self, warp_name: str) -> FunctionRef | None:
        """The project function installed as a Warp API (``wp.sim.collide = collide``)."""
        if not warp_name.startswith("warp."):
            return None
        patches = self.memo("patches", self._patches)
        found = patches.get(warp_name)
        return self.resolve_call(*found) if found is not None else None

    def _patches(self) -> dict[str, tuple[str, None, str]]:
        """Warp name -> (module, None, dotted name) of the first assignment installing a
        project function as that API (``resolve_call``'s arguments)."""
        patches: dict[str, tuple[str, None, str]] = {}
        for module, facts in self.modules.items():
            for name, value in facts.patches:
                if value.kind == "name" and value.data:
                    patches.setdefault(name, (module, None, value.data))
        return patches

    def imported_directly(self, module: str) -> set[str]:
        """The project modules ``module`` itself imports (and itself)."""
        return set(self._direct(module))

    def _direct(self, module: str) -> frozenset[str]:
        cached = self._direct_imports.get(module)
        if cached is None:
            cached = self._direct_imports[module] = frozenset({module, *self._imported_by(module)})
        return cached

    def _imported_by(self, module: str) -> Iterator[str]:
        """The project modules one module's import statements name (``from a.b import c``
        names ``a.b.c`` or, when that is not a module, ``a.b``)."""
        facts = self.modules.get(module)
        for name, _line, _top in facts.imports if facts else ():
            for candidate in (name, name.rsplit(".", 1)[0]):
                if candidate in self.modules:
                    yield candidate

    def escaped_kernel_modules(self) -> set[str]:
        """Python modules with a kernel passed as a value to a project call (not launched
        where it is named): whoever receives it may launch it anywhere, on a tape too."""
        return self.memo("program.escaped_kernel_modules", self._escaped_kernel_modules)

    def _escaped_kernel_modules(self) -> set[str]:
        out: set[str] = set()
        # (module, function, id of an argument's value): a file shares one object per
        # distinct value, and the same local passed to many calls has one answer.
        asked: set[tuple[str, str | None, int]] = set()
        for module, facts in self.modules.items():
            scopes = [(f.qualname, f.calls) for f in facts.functions.values()]
            scopes.append((None, facts.module_calls + facts.main_calls))
            for function, calls in scopes:
                caller = facts.functions.get(function) if function else None
                for call in calls:
                    if call.callee.startswith("warp.") or self.resolve_call(module, caller, call.callee) is None:
                        continue
                    for arg in (*call.args, *call.kwargs.values()):
                        if arg.kind not in ("name", "local", "sub") or (module, function, id(arg)) in asked:
                            continue
                        asked.add((module, function, id(arg)))
                        for ref in self.kernels_of_value(module, function, arg):
                            if isinstance(ref, KernelRef):
                                out.add(ref.module)
        return out

    def imported_closure(self, module: str) -> set[str]:
        """``module`` and the project modules it imports, transitively."""
        cache = self._closures
        if module in cache:
            return cache[module]
        seen = {module}
        stack = [module]
        while stack:
            for candidate in self._direct(stack.pop()):
                if candidate not in seen:
                    seen.add(candidate)
                    stack.append(candidate)
        cache[module] = seen
        return seen

    # ------------------------------------------------------------------ entry points
    def entry_modules(self) -> list[str]:
        """Modules that start a program: ``__main__`` files, files with a
        ``if __name__ == "__main__":`` block, and scripts (imported by no project module)
        whose top level calls or launches something. Test files are not entry points."""
        return self.memo("program.entry_modules", self._entry_modules)

    def _entry_modules(self) -> list[str]:
        imported: set[str] = set()
        for facts in self.modules.values():
            for name, _line, _top in facts.imports:
                imported.add(name)
                imported.add(name.rsplit(".", 1)[0])
        entries = []
        for module, facts in self.modules.items():
            if is_test_path(facts.path):
                continue
            script = module not in imported and (facts.module_calls or any(l.function is None for l in facts.launches))
            if module.rsplit(".", 1)[-1] == "__main__" or facts.has_main_guard or script:
                entries.append(module)
        return entries

    def reached_from(self, entry: str) -> set[FunctionRef]:
        """Functions an entry module's top level (and ``__main__`` block) can run."""
        cache = self._reached
        if entry in cache:
            return cache[entry]
        facts = self.modules[entry]
        seen: set[FunctionRef] = set()
        stack: list[FunctionRef] = []
        for call in facts.module_calls + facts.main_calls:
            stack.extend(self._call_targets(entry, None, call.callee))
        while stack:
            ref = stack.pop()
            if ref in seen:
                continue
            seen.add(ref)
            fact = self.function(ref)
            if fact is None:
                continue
            for call in fact.calls:
                stack.extend(t for t in self._call_targets(ref.module, fact, call.callee) if t not in seen)
            # Methods of objects built here run when the program calls them (a step loop in
            # code not linted, a framework): a constructed class's hot methods count.
            if fact.name == "__init__" and fact.class_name:
                prefix = fact.qualname.rsplit(".", 1)[0] + "."
                for qualname, method in self.modules[ref.module].functions.items():
                    if qualname.startswith(prefix) and self._intrinsic(method, "") is not None:
                        stack.append(FunctionRef(ref.module, qualname))
        cache[entry] = seen
        return seen

    def _call_targets(self, module: str, caller: FunctionFact | None, callee: str) -> Sequence[FunctionRef]:
        """What a call can run: the function it resolves to, or, for ``Class.apply(...)``
        on a project class that inherits the method (``torch.autograd.Function``), the
        class's own hook methods (``forward``, ``backward``) that the base class calls."""
        target = self.resolve_call(module, caller, callee)
        if target is not None:
            return [target]
        key = (module, callee)  # the hooks depend on the callee's text only
        found = self._hook_targets.get(key)
        if found is None:
            found = self._hook_targets[key] = self._hooks_called(module, callee)
        return found

    def _hooks_called(self, module: str, callee: str) -> Sequence[FunctionRef]:
        head, _, _attr = callee.rpartition(".")
        if not head:
            return _NO_TARGETS
        found = self._class_of_value(module, Value("call", head))
        if found is None:
            return _NO_TARGETS
        class_module, class_name = found
        prefix = class_name + "."
        return tuple(
            FunctionRef(class_module, qualname)
            for qualname, method in self.modules[class_module].functions.items()
            if qualname.startswith(prefix) and self._intrinsic(method, "") is not None
        )  # memoized and shared: never a list a caller could change

    def _own_events(self, module: str) -> dict[str | None, list[tuple[float, list[Event]]]]:
        """(order, events) of each function's own launches, option changes, definitions and
        overloads (key None: the module body), from one pass over the module's facts."""
        cached = self._own_events_memo.get(module)
        if cached is not None:
            return cached
        facts = self.modules[module]
        own: dict[str | None, list[tuple[float, list[Event]]]] = {}
        for index, launch in enumerate(facts.launches):
            modules = self.launch_modules(module, index)
            known = frozenset(_module_key(m) for m in modules if m is not UNRESOLVED)
            events = [Event("load", known, module, launch.span, (), (launch.kind, index), launch.path)] if known else []
            own.setdefault(launch.function, []).append((launch.order, events))
        for option in facts.options:
            targets = frozenset(t for t in self.option_target(module, option) if t is not UNRESOLVED)
            if targets:
                own.setdefault(option.function, []).append((option.order, [Event("options", targets, module, option.span, (), option, option.path)]))
        for index, kernel in enumerate(facts.kernels):
            if kernel.decorator != "kernel":
                continue
            kref = KernelRef(module, index)
            modules = frozenset(_module_key(m) for m in self.kernel_modules(kref) if m is not UNRESOLVED)
            if modules:
                own.setdefault(kernel.function, []).append((kernel.order, [Event("define", modules, module, kernel.span, (), kref, kernel.path)]))
        for name, span, function in facts.overloads:
            if not name:
                continue
            fact = facts.functions.get(function) if function is not None else None
            if fact is not None and name in fact.params:
                # ``wp.overload(kernel, sig)`` in a helper (a dispatcher's ``__init__``): the
                # kernels its callers hand it.
                krefs = self._kernels_passed_for(module, function, name)
            else:
                krefs = self.kernels_of_value(module, function, Value("name", name))
            for kref in krefs:
                if not isinstance(kref, KernelRef):
                    continue
                modules = frozenset(_module_key(m) for m in self.kernel_modules(kref) if m is not UNRESOLVED)
                if modules:
                    own.setdefault(function, []).append((_order_at(facts, function, span), [Event("overload", modules, module, span, (), kref)]))
        self._own_events_memo[module] = own
        return own

    # ------------------------------------------------------------------ flows
    def effects(self, ref: FunctionRef, _stack: tuple[FunctionRef, ...] = (),
                shallow: bool = False) -> tuple[Event, ...]:  # fmt: skip
        """What running ``ref`` does to Warp, in order, callees inlined. ``qualname``
        ``"<module>"`` is the module body (its ``__main__`` block included).

        A callee's events are inlined once per statement; ``shallow``: only its first load of
        each module, too (``_first_occurrences``). Enough for
        "X after a load" questions across calls, where pairs inside one callee are the
        callee's own, and far cheaper on programs whose step functions launch hundreds of
        kernels through deep call trees."""
        memo = self._shallow_effects if shallow else self._effects
        cached = memo.get(ref)
        if cached is not None:
            self._cut = _NO_CUT
            return cached
        if ref in _stack:
            self._cut = _stack.index(ref)  # recursion: this flow is cut where it re-enters
            return ()
        if len(_stack) > MAX_DEPTH:
            self._cut = -1  # the depth cap cut it: right for this call chain only
            return ()
        partial = self._partial_effects.get((ref, shallow))
        if partial is not None:
            self._cut = partial[1]
            return partial[0]
        self._cut = _NO_CUT
        facts = self.modules.get(ref.module)
        if facts is None:
            return ()
        if ref.qualname == "<module>":
            fact, owner, calls = None, None, facts.module_calls + facts.main_calls
        else:
            fact = self.function(ref)
            if fact is None:
                return ()
            owner, calls = ref.qualname, fact.calls
        cut = _NO_CUT  # the shallowest caller on the stack that some recursion below returned to
        depth = len(_stack)
        items: list[tuple[float, list[Event]]] = list(self._own_events(ref.module).get(owner, ()))
        for call in calls:
            target = self.resolve_call(ref.module, fact, call.callee)
            if target is None and call.callee.startswith("warp."):
                target = self._patched(call.callee)
            if target is None:
                continue
            inner = self.effects(target, (*_stack, ref), shallow)
            cut = min(cut, self._cut)
            if not inner:
                continue
            # One callee's events, thinned once (they are inlined at each of its call sites).
            thinned = self._thinned.get((id(inner), shallow))
            if thinned is None or thinned[0] is not inner:
                thinned = self._thinned[(id(inner), shallow)] = (inner, _first_occurrences(inner, shallow))
            inner = thinned[1]
            if inner:
                link = (ref.module, call.span, target.qualname, target.module)
                items.append((call.order, [CalleeEvent(e, link, call.path) for e in inner]))
        items.sort(key=lambda pair: pair[0])
        result = tuple(event for _order, events in items for event in events)
        # A result is the same whatever the caller when no recursion below it returned to a
        # caller above it (a function calling itself is cut at itself): memoize it. One cut
        # at a caller is right for flows through that caller only: it is reused while the
        # flow that computed it is walked (a cycle would otherwise be walked once per path
        # through it), then forgotten.
        if cut >= depth or not _stack:
            memo[ref] = result
            self._cut = _NO_CUT
        else:
            self._partial_effects[(ref, shallow)] = (result, cut)
            self._cut = cut
        if not _stack:
            self._partial_effects.clear()
        return result


def _argument_for(fact: FunctionFact, call: Value, param: str) -> Value | None:
    """The argument a ``call`` value passes for ``param`` of the function it calls."""
    for item in call.items:
        if item.kind == "kw" and item.data == param:
            return item.items[0]
    positional = [item for item in call.items if item.kind != "kw"]
    index = _positional_index(fact, param)
    return positional[index] if 0 <= index < len(positional) else None


def argument_passed(fact: FunctionFact, call: CallFact, param: str) -> Value | None:
    """The argument ``call`` passes for ``fact``'s parameter ``param`` (None: not passed)."""
    argument = call.kwargs.get(param)
    if argument is None:
        index = _positional_index(fact, param)
        if 0 <= index < len(call.args):
            argument = call.args[index]
    return argument


def _positional_index(fact: FunctionFact, param: str) -> int:
    """Where a call passes ``param`` positionally (a method's ``self``/``cls`` is not
    passed); -1 when it is not a parameter."""
    if param not in fact.params:
        return -1
    index = list(fact.params).index(param)
    if fact.class_name is not None and fact.params[0] in ("self", "cls"):
        index -= 1
    return index


def _order_at(facts: FileFacts, function: str | None, span: tuple[int, int, int, int]) -> float:
    """An event order for a statement recorded without one (``wp.overload(...)`` calls): just
    after the last event of the same function that starts before it."""
    best = 0.0
    for group in (facts.launches, facts.options, facts.kernels):
        for item in group:
            if item.function == function and item.span[:2] <= span[:2]:
                best = max(best, item.order + 0.5)
    owner = facts.functions.get(function) if function else None
    for call in owner.calls if owner is not None else facts.module_calls + facts.main_calls:
        if call.span[:2] <= span[:2]:
            best = max(best, call.order + 0.5)
    return best


def _collection_elements(value: Value) -> bool:
    """Whether the value reads the variable of a loop over a collection of settings
    (``for level in levels``), not over ``range(...)`` (time steps, iterations)."""
    if value.kind == "elem":
        iterated = value.items[0] if value.items else None
        return not (iterated is not None and iterated.kind == "call" and iterated.data == "range")
    return any(_collection_elements(item) for item in value.items)


def _passes_loop_variable(call: CallFact) -> bool:
    return any(_collection_elements(v) for v in (*call.args, *call.kwargs.values()))


# Calls inside a tape block that cannot launch project kernels.
_TAPE_HARMLESS_ROOTS = ("warp.", "numpy.", "math.", "torch.", "print", "len", "range", "float", "int", "zip",
                        "enumerate", "min", "max", "abs", "sum", "list", "tuple", "dict", "isinstance", "str",
                        "tape.", "self.tape.", "time.", "super")  # fmt: skip
_TAPE_HARMLESS_METHODS = ("zero_", "fill_", "assign", "numpy", "append", "item", "copy", "clone", "reshape",
                          "view", "flatten", "contiguous", "detach", "to", "cpu", "cuda", "sum", "mean")  # fmt: skip


def _harmless_in_tape(callee: str) -> bool:
    if callee.startswith(_TAPE_HARMLESS_ROOTS) or callee in _TAPE_HARMLESS_ROOTS:
        return True
    last = callee.rsplit(".", 1)[-1]
    return last in _TAPE_HARMLESS_METHODS or last.startswith("assert") or (last[:1].isupper() and "." not in callee)


_DTYPE_ALIASES = {
    "numpy.float32": "warp.float32", "numpy.float64": "warp.float64", "numpy.float16": "warp.float16",
    "numpy.int32": "warp.int32", "numpy.int64": "warp.int64", "numpy.uint32": "warp.uint32",
    "numpy.int8": "warp.int8", "numpy.uint8": "warp.uint8", "numpy.int16": "warp.int16", "numpy.bool_": "warp.bool",
    "warp.types.float32": "warp.float32", "warp.types.float64": "warp.float64", "warp.types.int32": "warp.int32",
}  # fmt: skip
# Python's types as array dtypes: Warp stores ``dtype=float`` as float32, ``int`` as int32.
_PYTHON_DTYPES = {"float": "warp.float32", "int": "warp.int32", "bool": "warp.bool"}
_FLOAT_SUFFIXED = ("warp.vec", "warp.mat", "warp.quat", "warp.transform", "warp.spatial_vector", "warp.spatial_matrix")


def _canonical_dtype(name: str) -> str:
    """One spelling per Warp type: ``wp.vec4`` is ``wp.vec4f``, ``np.float32`` is ``wp.float32``."""
    name = _DTYPE_ALIASES.get(name, name)
    if name.startswith(_FLOAT_SUFFIXED) and name.endswith("f") and not name.endswith(("_f",)):
        return name[:-1]
    return name


def _identity(value: Any) -> Any:
    return value


# Calls that convert or wrap a constant without changing what it says.
_CONVERSIONS = {
    "int": int, "float": float, "str": str, "bool": bool, "warp.constant": _identity,
    "warp.int32": int, "warp.int64": int, "warp.uint32": int, "warp.float32": float, "warp.float64": float,
}  # fmt: skip

_TEST_DIRS = ("tests", "test", "testing")


def is_test_path(path: str) -> bool:
    parts = path.replace("\\", "/").split("/")
    name = parts[-1]
    return (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
            or any(p in _TEST_DIRS for p in parts[:-1]))  # fmt: skip


_DEMO_DIRS = ("examples", "example", "benchmarks", "benchmark", "docs", "tutorials", "notebooks")


def is_demo_path(path: str) -> bool:
    """An example, benchmark or tutorial shipped beside a library: its users' code, not the
    library's own entry point."""
    parts = path.replace("\\", "/").split("/")
    return any(p in _DEMO_DIRS for p in parts[:-1]) or parts[-1].startswith(("example_", "bench_"))


def _module_key(module: Any) -> str:
    if isinstance(module, tuple):
        return f"{module[0]}:{module[1]}.{module[2]}"
    return str(module)


def _first_occurrences(events: tuple[Event, ...], first_load_per_module: bool) -> tuple[Event, ...]:
    """A callee's events as its caller needs them: the first of each statement (one reached
    through several calls inside the callee), and with ``first_load_per_module`` only the
    first load of each module. Every event of one call shares the call's place and arms in
    the caller, so a later repeat can only pair with what the first already pairs with (a
    launch repeated after its module's first build instantiates nothing new)."""
    loaded: set[str] = set()
    seen: set[tuple] = set()
    out = []
    for event in events:
        if first_load_per_module and event.kind == "load":
            if event.warp_modules <= loaded:
                continue
            loaded |= event.warp_modules
        else:
            key = (event.kind, event.site_module, event.span)
            if key in seen:
                continue
            seen.add(key)
        out.append(event)
    return tuple(out)


def innermost_call(via: tuple) -> tuple[str, tuple[int, int, int, int], str, str]:
    """The last link of a non-empty call chain: the call that runs the event's own code."""
    link, rest = via
    while rest:
        link, rest = rest
    return link


class LoadHistory:
    """The loads seen so far while walking one flow's events, per Warp module."""

    def __init__(self) -> None:
        self._loads: dict[str, list[Event]] = {}

    def add(self, event: Event) -> None:
        for module in event.warp_modules:
            self._loads.setdefault(module, []).append(event)

    def loaded(self, module: str) -> bool:
        return module in self._loads

    def before(self, event: Event, modules: Iterable[str] | None = None) -> Event | None:
        """The earliest load of one of the event's modules that runs in the same pass
        (not on another arm of a branch). None as well when a load inside the same call
        precedes it: then the callee's own flow holds the pair and reports it there."""
        candidates = [
            load
            for module in (modules if modules is not None else event.warp_modules)
            for load in self._loads.get(module, ())
            if not load.exclusive_with(event)
        ]
        first = event.first_link  # the chain of an inlined event is built anew on each .via
        if first is not None and any(load.first_link == first for load in candidates):
            return None
        return candidates[0] if candidates else None


def module_key(module: Any) -> str:
    return _module_key(module)


def _reads_self_attr(value: Value, attr: str, depth: int = 0) -> bool:
    """``value`` reads ``self.<attr>`` (an update computed from the attribute's own value)."""
    if value.kind == "attr" and value.data == attr and value.items and value.items[0].kind == "self":
        return True
    return depth < MAX_DEPTH and any(_reads_self_attr(item, attr, depth + 1) for item in value.items)


def _binds(program: Program, module: str, caller: FunctionFact, name: str) -> bool:
    """Whether ``_resolve_call`` reads ``name`` from the caller: ``self``/``cls``, or a local
    or loop table of the caller or an enclosing function. Otherwise the call resolves as it
    would at module level (most calls: ``np.zeros``, ``helper(...)``, ``pkg.make()``)."""
    if name in ("self", "cls"):
        return True
    scope: FunctionFact | None = caller
    while scope is not None:
        if scope.locals.get(name) or name in scope.loop_tables:
            return True
        scope = program.function(FunctionRef(module, scope.parent)) if scope.parent else None
    return False


__all__ = ["Event", "innermost_call", "Freq", "Frequency", "LoadHistory", "FunctionRef", "KernelRef", "Program", "UNIQUE", "UNRESOLVED", "module_key"]

