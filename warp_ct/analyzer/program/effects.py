"""What running a function does to Warp, in order, callees inlined: loads, option changes,
kernel definitions and overloads.
"""

from __future__ import annotations

from warp_ct.analyzer.deadline import poll
from warp_ct.analyzer.facts import (
    FileFacts,
    Value,
)
from warp_ct.analyzer.program.base import (
    _NO_CUT,
    MAX_DEPTH,
    UNRESOLVED,
    CalleeEvent,
    Event,
    FunctionRef,
    ImportDefinition,
    KernelRef,
    _module_key,
)


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


class Effects:
    """Part of :class:`Program` (``self`` is the program)."""

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

    def overloaded_kernels(self) -> frozenset[KernelRef]:
        """The kernels some ``wp.overload`` of the program declares: named there, or handed to
        a helper that overloads its parameter (``register_overloads(kernel, sig, dtypes)``)."""
        return self.memo("program.overloaded_kernels", lambda: frozenset(
            event.detail for module in self.modules for entries in self._own_events(module).values()
            for _order, events in entries for event in events if event.kind == "overload"
        ))  # fmt: skip


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
        if not _stack:
            # Provisional answers are for the flow that computed them; one a time limit
            # stopped (so they were not cleared on return) must not answer this one.
            self._partial_effects.clear()
        partial = self._partial_effects.get((ref, shallow))
        if partial is not None:
            self._cut = partial[1]
            return partial[0]
        poll()  # the file's time budget where no timer can interrupt (see deadline.py)
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


    # ------------------------------------------------------------------ import time
    # Importing a module runs its body. A Warp module copies wp.config's creation-time
    # options (enable_backward, max_unroll, lineinfo) when it is created: by a kernel defined
    # in that body (a class body's too), by one a function the body calls defines (a factory
    # called at import), and by a Warp function or struct there, which creates the file's own
    # Warp module. The last matters only where a kernel lands in that module later (a
    # factory's kernel without ``module=``): a module of functions and structs alone is never
    # built (a kernel builds the functions it calls with its own module's options), and a
    # kernel made later into a named or unique module copies the options of that moment.

    def import_definitions(self, module: str) -> tuple[ImportDefinition, ...]:
        """What importing ``module`` (its body, not the modules it imports) creates that keeps
        wp.config's creation-time options of that moment, in line order."""
        memo: dict[str, tuple[ImportDefinition, ...]] = self.memo("program.import_definitions", dict)
        found = memo.get(module)
        if found is None:
            found = memo[module] = self._import_definitions(module)
        return found

    def _import_definitions(self, module: str) -> tuple[ImportDefinition, ...]:
        facts = self.modules.get(module)
        if facts is None:
            return ()
        found: list[ImportDefinition] = []
        for kernel in facts.kernels:
            if kernel.function is None and (kernel.decorator == "kernel" or self.own_module_gets_kernels(module)):
                found.append(ImportDefinition(kernel.span[0], kernel.name, "kernel" if kernel.decorator == "kernel" else "func"))
        for name, function, _order, line in facts.structs:
            if function is None and self.own_module_gets_kernels(module):
                found.append(ImportDefinition(line, name, "struct"))
        defining = self.memo("program.flows_defining_kernels", self._flows_defining_kernels)
        for call in facts.module_calls:
            if any(target in defining for target in self._call_targets(module, None, call.callee)):
                found.append(ImportDefinition(call.span[0], call.callee, "call"))
        return tuple(sorted(found, key=lambda d: d.line))

    def _flows_defining_kernels(self) -> set[FunctionRef]:
        """The functions whose run defines a kernel (a factory, what calls one)."""
        definers = {FunctionRef(module, kernel.function) for module, facts in self.modules.items()
                    for kernel in facts.kernels if kernel.decorator == "kernel" and kernel.function is not None}  # fmt: skip
        return self._callers_closure(definers, enclosing=False) if definers else set()

    def own_module_gets_kernels(self, module: str) -> bool:
        """Some kernel may land in the Warp module named after ``module``'s file: one defined
        without ``module=``, one whose ``module=`` resolves to that name, or a kernel of the
        file whose ``module=`` the model cannot resolve (it may name the file's module; an
        f-string whose literal ends rule that name out does not)."""
        owners: dict[str, bool] = self.memo("program.own_module_gets_kernels", dict)
        found = owners.get(module)
        if found is None:
            found = owners[module] = self._own_module_gets_kernels(module)
        return found

    def _own_module_gets_kernels(self, module: str) -> bool:
        facts = self.modules.get(module)
        if facts is None:
            return False
        name = facts.module
        if name in self.memo("program.kernel_module_names", self._kernel_module_names):
            return True
        for index, kernel in enumerate(facts.kernels):
            if kernel.decorator != "kernel" or kernel.module is None:
                continue
            if UNRESOLVED in self.kernel_modules(KernelRef(module, index)) and _may_name(kernel.module, name):
                return True
        return False

    def _kernel_module_names(self) -> frozenset[str]:
        """The Warp module names (not unique ones) some kernel of the program lands in."""
        names: set[str] = set()
        for module, facts in self.modules.items():
            for index, kernel in enumerate(facts.kernels):
                if kernel.decorator == "kernel":
                    names.update(m for m in self.kernel_modules(KernelRef(module, index)) if isinstance(m, str))
        return frozenset(names)


def _may_name(value: Value, name: str) -> bool:
    """``value`` (a ``module=`` argument the model cannot resolve) may evaluate to ``name``:
    anything may, but an f-string whose literal ends ``name`` lacks."""
    if value.kind != "format" or not isinstance(value.data, (tuple, list)) or len(value.data) != 2:
        return True
    prefix, suffix = value.data
    return len(name) >= len(prefix) + len(suffix) and name.startswith(prefix) and name.endswith(suffix)
