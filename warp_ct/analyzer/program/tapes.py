"""What a ``wp.Tape`` or an adjoint launch differentiates, module by module."""

from __future__ import annotations

from typing import Sequence

from warp_ct.analyzer.facts import CallFact, FemCallFact, FunctionFact, LaunchFact, Value, WithFact
from warp_ct.analyzer.program.base import (
    _NO_TARGETS,
    _TAPE_HARMLESS_BUILTINS,
    _TAPE_HARMLESS_METHODS,
    _TAPE_HARMLESS_ROOTS,
    UNRESOLVED,
    FunctionRef,
    KernelRef,
    _module_key,
)


def _harmless_in_tape(callee: str) -> bool:
    if callee.startswith(_TAPE_HARMLESS_ROOTS) or callee in _TAPE_HARMLESS_BUILTINS:
        return True
    last = callee.rsplit(".", 1)[-1]
    return last in _TAPE_HARMLESS_METHODS or last.startswith("assert") or (last[:1].isupper() and "." not in callee)


# What ``wp.Tape`` is called where a class names it as a base (import-resolved).
_TAPE_CLASSES = frozenset({"warp.Tape", "warp.tape.Tape", "warp._src.tape.Tape"})
_TAPE_DEPTH = 6  # how far a ``with`` context's value is followed (locals, attributes, parameters)


class Tapes:
    """Part of :class:`Program` (``self`` is the program)."""

    # ------------------------------------------------------------------ tape blocks
    # The facts keep what each ``with`` around an event is (``WithFact``) and the file's own
    # reading (``taped``: the text names a tape). The model decides: ``wp.Tape()``, a name or
    # attribute holding one, a project subclass of it record; a project context manager that
    # sets Warp's runtime tape to None (``suspended_tape()``) records nothing inside, unless a
    # tape opened inside it does. A context the model cannot resolve keeps the file's reading.

    def taped(self, event: CallFact | LaunchFact | FemCallFact) -> bool:
        """Whether a tape records ``event`` where it sits: its innermost ``with`` context that
        records or suspends a tape decides; the file's reading where none does (a helper's
        launch placed at a call site, by the model, carries the call's reading in it)."""
        withs = event.withs
        for index in range(len(withs) - 1, -1, -1):
            verdict = self.tape_context(withs[index])
            if verdict is not None:
                return verdict
        return event.taped

    def suspended(self, event: CallFact | LaunchFact | FemCallFact) -> bool:
        """A ``with`` around ``event`` suspends the active tape and no tape opened inside it
        records it: a tape around the call that runs its function records nothing of it."""
        withs = event.withs
        for index in range(len(withs) - 1, -1, -1):
            verdict = self.tape_context(withs[index])
            if verdict is not None:
                return not verdict
        return False

    def suspends_anything(self) -> bool:
        """Some launch or call of the program sits in a suspended block (most programs: none,
        and the flows a tape runs are then every call's, as ``effects`` and ``called_closure``
        follow them)."""

        def compute() -> bool:
            for facts in self.modules.values():
                for launch in facts.launches:
                    if launch.withs and self.suspended(launch):
                        return True
                for calls in (*(f.calls for f in facts.functions.values()), facts.module_calls, facts.main_calls):
                    for call in calls:
                        if call.withs and self.suspended(call):
                            return True
            return False

        return self.memo("program.suspends_anything", compute)

    def taped_closure(self, starts: Sequence[FunctionRef]) -> set[FunctionRef]:
        """The functions a tape block's calls to ``starts`` run while the tape records:
        ``called_closure``, less what runs only through calls in a suspended block."""
        if not self.suspends_anything():
            return self.called_closure(starts)
        return self.called_closure(starts, skip=lambda call: bool(call.withs) and self.suspended(call), patched=True)

    def _taped_loads(self, starts: Sequence[FunctionRef]) -> set[str]:
        """The Warp modules the launches a tape block's calls to ``starts`` run load while
        the tape records (``effects``' loads, less those of suspended blocks)."""
        modules: set[str] = set()
        if not self.suspends_anything():
            for target in starts:
                for event in self.effects(target):
                    if event.kind == "load":
                        modules.update(event.warp_modules)
            return modules
        flows = self.taped_closure(starts)
        for module, facts in self.modules.items():
            for index, launch in enumerate(facts.launches):
                if launch.function is None or FunctionRef(module, launch.function) not in flows:
                    continue
                if launch.withs and self.suspended(launch):
                    continue
                modules.update(_module_key(t) for t in self.launch_modules(module, index) if t is not UNRESOLVED)
        return modules

    def tape_context(self, context: WithFact) -> bool | None:
        """True: the ``with`` block records on a tape (``wp.Tape()``, a name or attribute
        holding one, a project subclass of it, or a context the model does not resolve whose
        text names a tape); False: it suspends the active tape (a project context manager
        whose body sets Warp's runtime tape to None); None: neither."""
        known: dict[int, tuple[WithFact, bool | None]] = self.memo("program.tape_contexts", dict)
        found = known.get(id(context))
        if found is not None and found[0] is context:
            return found[1]
        if context.kind == "tape":
            verdict: bool | None = True
        elif context.kind == "call":
            verdict = self._call_context(context)
        else:
            verdict = True if self._holds_tape(context.module, context.function, context.value, 0) else None
        if verdict is None and context.named:
            verdict = True  # unknown: the file's reading
        known[id(context)] = (context, verdict)
        return verdict

    def _call_context(self, context: WithFact) -> bool | None:
        module, function, callee = context.module, context.function, str(context.callee)
        cls = self._project_class(module, callee)
        if cls is not None:
            if self._is_tape_class(*cls):
                return True  # ``with SGATape():``
            enter = self.method(cls[0], cls[1], "__enter__")
            fact = self.function(enter) if enter is not None else None
            return False if fact is not None and fact.suspends_tape else None
        caller = self.function(FunctionRef(module, function)) if function is not None else None
        ref = self.resolve_call(module, caller, callee)
        fact = self.function(ref) if ref is not None else None
        return False if fact is not None and fact.suspends_tape else None

    def _is_tape_class(self, module: str, class_name: str) -> bool:
        """A project class deriving from ``wp.Tape`` (through project bases)."""
        for where, name in self.class_chain(module, class_name):
            facts = self.modules.get(where)
            if facts is None:
                continue
            for base in facts.classes.get(name, ()):
                head = base.split(".")[0]
                if facts.aliases.get(head, head) + base[len(head):] in _TAPE_CLASSES:
                    return True
        return False

    def _holds_tape(self, module: str, function: str | None, value: Value | None, depth: int) -> bool:
        """``value`` (a ``with`` context's name or attribute) may hold a ``wp.Tape``: one of
        the values assigned to it, passed for it or held by the attribute makes one."""
        if value is None or depth > _TAPE_DEPTH:
            return False
        kind = value.kind
        if kind == "call":
            if value.data in _TAPE_CLASSES:
                return True
            cls = self._project_class(module, value.data) if isinstance(value.data, str) else None
            return cls is not None and self._is_tape_class(*cls)
        if kind in ("local", "choice"):
            return any(self._holds_tape(module, function, item, depth + 1) for item in value.items)
        if kind == "attr" and value.items and value.items[0].kind == "self" and function is not None:
            class_name = self.class_of(FunctionRef(module, function))
            return class_name is not None and any(
                self._holds_tape(where.module, where.qualname, item, depth + 1)
                for where, item in self.self_attr_values(module, class_name, value.data)
            )
        if kind == "param" and function is not None:
            passed = self.passed_values(FunctionRef(module, function), value.data) or ()
            return any(self._holds_tape(m, f, item, depth + 1) for m, f, item in passed)
        if kind == "name" and isinstance(value.data, str) and "." not in value.data:
            facts = self.modules.get(module)
            return facts is not None and any(
                self._holds_tape(module, None, item, depth + 1) for item in facts.globals.get(value.data, ())
            )
        return False

    def differentiated(self) -> tuple[set[str], bool]:
        """(Warp modules whose kernels something differentiates: launched on a ``wp.Tape``,
        directly or through calls made inside the tape block, or with ``adjoint=True``;
        whether some taped launch reaches kernels the model cannot name)."""
        return self.memo("program.differentiated", self._differentiated)


    def _differentiated(self) -> tuple[set[str], bool]:
        modules: set[str] = set()
        opaque: set[str] = set()  # Python modules with a tape over something the model cannot name
        unnamed = self._reaching_unnamed_launches()
        starts: list[FunctionRef] = []  # what the calls inside tape blocks run
        for module, facts in self.modules.items():
            for index, launch in enumerate(facts.launches):
                adjoint = launch.adjoint is not None and launch.adjoint != Value("const", False)
                if not launch.kind.startswith("launch") or not (adjoint or self.taped(launch)):
                    continue
                targets = self.launch_modules(module, index)
                if any(t is UNRESOLVED for t in targets):
                    opaque.add(module)
                modules.update(_module_key(t) for t in targets if t is not UNRESOLVED)
            scopes = [(fact, fact.calls) for fact in facts.functions.values()]
            scopes.append((None, facts.module_calls + facts.main_calls))
            for fact, calls in scopes:
                for call in calls:
                    if not self.taped(call):
                        continue
                    target = self.resolve_call(module, fact, call.callee) or self._patched(call.callee)
                    targets = [target] if target is not None else []
                    if target is None:
                        named = self.unfollowed_in_tape(module, fact, call.callee)
                        if named is None:
                            continue
                        opaque.add(module)
                        targets = list(named)
                    for target in targets:
                        if target in unnamed:
                            opaque.add(module)
                    starts.extend(targets)
        modules |= self._taped_loads(starts)
        return (modules, opaque)


    def unfollowed_in_tape(self, module: str, caller: FunctionFact | None, callee: str) -> Sequence[FunctionRef] | None:
        """A call inside a tape block that the model does not resolve: None when it cannot run
        project code (Warp's own API, a method on a warp.fem object such as ``field.trace()``),
        else the project methods it may run (``self.policy.act(x)`` on an object of unknown
        type: any project method of that name; none for a plain name)."""
        if _harmless_in_tape(callee) or self.on_fem_object(module, caller, callee):
            return None
        return self._methods_named(callee.rsplit(".", 1)[1]) if "." in callee else _NO_TARGETS


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


    # ------------------------------------------------------------------ opaque tapes
    # A tape over a call the model cannot follow (``with tape: self._network(x)``, ``fn(x)``
    # on a parameter) records whatever that call runs. It cannot run just any function:
    # only one it can get hold of — a function handed somewhere as a value (an argument,
    # a stored attribute, a returned closure), a method of an object it holds (named as the
    # project calls methods on objects the model cannot type, or ``__call__``). A launch in
    # code none of those reach (a launch after ``tape.backward()`` or outside the ``with``
    # block, in a function only called by name) is not recorded by it.

    def loose_names(self) -> tuple[frozenset[str], frozenset[str]]:
        """(names of functions the program handes around as values: the last part of each
        name or attribute read in a call's arguments, a stored value, a default or a
        ``return``; names of the methods it calls on objects the model cannot type). A
        batch asks before it drops the calls that reach no project function (their
        arguments and method names count)."""
        return self.memo("program.loose_names", self._loose_names)


    def _loose_names(self) -> tuple[frozenset[str], frozenset[str]]:
        values: set[str] = set()
        methods: set[str] = set()
        seen: set[int] = set()

        def walk(value: Value) -> None:
            stack = [value]
            while stack:
                v = stack.pop()
                key = id(v)
                if key in seen:
                    continue
                seen.add(key)
                kind = v.kind
                if kind in ("name", "attr") and isinstance(v.data, str):
                    values.add(v.data.rsplit(".", 1)[-1])
                elif kind == "local" and isinstance(v.data, str):
                    values.add(v.data)
                stack.extend(v.items)

        for module, facts in self.modules.items():
            for values_list in facts.globals.values():
                for v in values_list:
                    walk(v)
            for fields in facts.class_fields.values():
                for _name, v in fields:
                    walk(v)
            scopes: list[tuple] = []
            for fact in facts.functions.values():
                for values_list in (*fact.locals.values(), *fact.self_attrs.values(), fact.returns, fact.defaults.values()):
                    for v in values_list:
                        walk(v)
                scopes.append((fact, fact.calls))
            scopes.append((None, [*facts.module_calls, *facts.main_calls]))
            for fact, calls in scopes:
                for call in calls:
                    for v in call.args:
                        walk(v)
                    for v in call.kwargs.values():
                        walk(v)
                    callee = call.callee
                    if "." in callee and not callee.startswith("warp.") and not self._call_targets(module, fact, callee):
                        methods.add(callee.rsplit(".", 1)[1])
        return frozenset(values), frozenset(methods)


    def opaque_tape_reach(self) -> frozenset[str]:
        """The Python modules whose kernels a tape over calls the model cannot follow may
        record: of the modules each such file imports, those with a launch in code an
        unknown call can get to (``open_functions``) or whose kernels are handed around as
        values, and the modules whose kernels are handed to project calls."""
        return self.memo("program.opaque_tape_reach", self._opaque_tape_reach)


    def _opaque_tape_reach(self) -> frozenset[str]:
        sources = self.differentiated()[1]
        if not sources:
            return frozenset()
        escaped = self.escaped_kernel_modules()
        closed = self._closed_kernel_modules()
        reached: set[str] = set()
        for source in sources:
            reached |= self.imported_directly(source) - closed
            reached |= self.imported_closure(source) & escaped
        return frozenset(reached)


    def open_functions(self) -> set[FunctionRef]:
        """The functions an unknown call may run: those handed around as values, methods of
        a name the program calls on objects the model cannot type, ``__call__`` methods,
        and everything they call."""
        return self.memo("program.open_functions", self._open_functions)


    def _open_functions(self) -> set[FunctionRef]:
        values, methods = self.loose_names()
        stack: list[FunctionRef] = []
        for ref, fact in self.functions():
            name = fact.name
            if fact.is_kernel:
                continue
            if name in values or (fact.class_name is not None and (name in methods or name == "__call__")):
                stack.append(ref)
        for module, facts in self.modules.items():
            for alias, target in facts.method_aliases.items():
                if alias.endswith(".__call__"):
                    stack.append(FunctionRef(module, target))
        return self.called_closure(stack)


    def _closed_kernel_modules(self) -> set[str]:
        """The Python modules whose kernels only run where no unknown call gets to: each is
        launched by name (never handed around as a value), at a launch the model resolves,
        at import or in a function outside ``open_functions``, and off every tape."""
        values, _methods = self.loose_names()
        open_ = self.open_functions()
        closed: set[str] = set()
        for module, facts in self.modules.items():
            if facts.kernels and not any(k.name in values for k in facts.kernels):
                closed.add(module)
        if not closed:
            return closed
        launched: set[str] = set()
        for module, facts in self.modules.items():
            for index, launch in enumerate(facts.launches):
                if not launch.kind.startswith("launch"):
                    continue
                targets = self.launch_kernels(module, index)
                hit = {t.module for t in targets if isinstance(t, KernelRef)} & closed
                if not hit:
                    continue
                adjoint = launch.adjoint is not None and launch.adjoint != Value("const", False)
                if (adjoint or self.taped(launch) or any(not isinstance(t, KernelRef) for t in targets)
                        or (launch.function is not None and FunctionRef(module, launch.function) in open_)):  # fmt: skip
                    closed -= hit
                else:
                    launched |= hit
        return closed & launched
