"""What a ``wp.Tape`` or an adjoint launch differentiates, module by module."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, Sequence

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
    is_demo_path,
    is_test_module,
)


def _harmless_in_tape(callee: str) -> bool:
    if callee.startswith(_TAPE_HARMLESS_ROOTS) or callee in _TAPE_HARMLESS_BUILTINS:
        return True
    last = callee.rsplit(".", 1)[-1]
    return last in _TAPE_HARMLESS_METHODS or last.startswith("assert") or (last[:1].isupper() and "." not in callee)


# What ``wp.Tape`` is called where a class names it as a base (import-resolved).
_TAPE_CLASSES = frozenset({"warp.Tape", "warp.tape.Tape", "warp._src.tape.Tape"})
# Values that name something (a name, an attribute read, a local): what ``loose_names`` collects.
_NAMED_KINDS = frozenset({"name", "attr", "local"})
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

    def reaching_recorded(self, targets: Sequence[FunctionRef]) -> set[FunctionRef]:
        """The functions whose run can reach one of ``targets`` while a tape it runs under
        records: ``reaching``, less the ways in through calls in a suspended block."""
        if not self.suspends_anything():
            return self.reaching(targets)
        return self._callers_closure(targets, enclosing=True, skip=self.suspended)

    def taped_closure(self, starts: Sequence[FunctionRef]) -> set[FunctionRef]:
        """The functions a tape block's calls to ``starts`` run while the tape records:
        ``called_closure``, less what runs only through calls in a suspended block."""
        if not self.suspends_anything():
            return self.called_closure(starts)
        return self.called_closure(starts, skip=self.suspended, patched=True)

    def _taped_loads(self, starts: Sequence[FunctionRef], named: Sequence[FunctionRef] = (),
                     by_tape: dict[str, list[FunctionRef]] | None = None) -> set[str]:  # fmt: skip
        """The Warp modules the launches run while the tape records load: those of the tape
        block's calls to ``starts`` (``effects``' loads, less those of suspended blocks) and
        to ``named`` (the project methods its calls on untyped objects may run), and those
        of what the calls the model does not follow on the way may run (``_unfollowed``).
        ``by_tape``: ``starts`` by the module whose tape block calls them, whose process
        bounds what the untyped calls on their way may run."""
        modules: set[str] = set()
        suspends = self.suspends_anything()
        skip = self.suspended if suspends else None
        followed = self.taped_closure([*starts, *named])
        reached = self._unfollowed(starts, named, skip, suspends, by_tape) - followed
        if suspends:
            reached |= followed
        else:  # the effects hold the followed calls' loads
            for target in (*starts, *named):
                for event in self.effects(target):
                    if event.kind == "load":
                        modules.update(event.warp_modules)
        for module, facts in self.modules.items():
            for index, launch in enumerate(facts.launches):
                if launch.function is None or FunctionRef(module, launch.function) not in reached:
                    continue
                if launch.withs and self.suspended(launch):
                    continue
                modules.update(_module_key(t) for t in self.launch_modules(module, index) if t is not UNRESOLVED)
        return modules

    def _unfollowed(self, starts: Sequence[FunctionRef], named: Sequence[FunctionRef],
                    skip: Callable[[CallFact], bool] | None, patched: bool,
                    by_tape: dict[str, list[FunctionRef]] | None = None) -> set[FunctionRef]:  # fmt: skip
        """What a tape block's calls run past the calls the model does not follow. A call of
        a parameter runs what the callers pass (``fn(obj)`` in a helper handed ``_do``). A
        method on an object the model cannot type runs any project method of that name (a
        library's ``obj.compute_residuals()`` on a user's subclass of its objective), once
        along a path: a name already stands for a guess (``self.policy.act()`` is any
        ``act``), and a guess inside a guess reaches everything."""
        def unresolved(ref: FunctionRef, fact: FunctionFact) -> Iterator[CallFact]:
            for call in self._calls_kept_or_dropped(ref, fact.calls):
                if not (skip is not None and skip(call)) and not self._call_targets(ref.module, fact, call.callee):
                    yield call

        def passed(ref: FunctionRef, fact: FunctionFact) -> list[FunctionRef]:
            found: list[FunctionRef] = []
            for call in unresolved(ref, fact):
                if call.callee in fact.params:
                    found.extend(f for f in self._functions_of(ref.module, ref.qualname, Value("param", call.callee), 0) if f)
            return found

        groups = list(by_tape.items()) if by_tape is not None else [(None, list(starts))]
        exact: set[FunctionRef] = set()
        guessed = [*named]
        for tape, group in groups:
            reached = self.called_closure(group, skip=skip, patched=patched, also=passed)
            exact |= reached
            for ref in reached:
                fact = self.function(ref)
                for call in unresolved(ref, fact) if fact is not None else ():
                    if "." in call.callee:
                        guessed.extend(self.unfollowed_in_tape(ref.module, fact, call.callee, tape) or ())
        return exact | self.called_closure(guessed, skip=skip, patched=patched, also=passed)

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
        elif context.kind == "backward":
            verdict = False  # a ``record_func`` callback: run by ``tape.backward()``, which records nothing
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
        by_tape: dict[str, list[FunctionRef]] = {}  # the same, by the module whose tape block calls them
        guessed: list[FunctionRef] = []  # what their calls on untyped objects may run (by method name)
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
                    followed = target is not None
                    if target is None:
                        named = self.unfollowed_in_tape(module, fact, call.callee, module)
                        if named is None:
                            continue
                        opaque.add(module)
                        targets = list(named)
                    for target in targets:
                        if target in unnamed:
                            opaque.add(module)
                    (starts if followed else guessed).extend(targets)
                    if followed:
                        by_tape.setdefault(module, []).extend(targets)
        modules |= self._taped_loads(starts, guessed, by_tape)
        return (modules, opaque)


    def unfollowed_in_tape(self, module: str, caller: FunctionFact | None, callee: str,
                           tape: str | None = None) -> Sequence[FunctionRef] | None:  # fmt: skip
        """A call inside a tape block that the model does not resolve: None when it cannot run
        project code (Warp's own API, a method on a warp.fem object such as ``field.trace()``),
        else the project methods it may run (``self.policy.act(x)`` on an object of unknown
        type: any project method of that name; none for a plain name)."""
        if _harmless_in_tape(callee) or self.on_fem_object(module, caller, callee):
            return None
        if "." not in callee:
            return _NO_TARGETS
        methods = self._methods_named(callee.rsplit(".", 1)[1])
        return methods if tape is None else self._held_in_process(tape, methods)

    def _held_in_process(self, tape: str, methods: Sequence[FunctionRef]) -> list[FunctionRef]:
        """``methods`` whose objects a process running the tape block of module ``tape`` can
        hold. An example's or a test's class has objects only in a process that loads its file:
        one whose entry is (or imports) ``tape`` and imports that file too. (newton: a diffsim
        example's taped ``self.solver.step()`` was any of 168 ``step`` methods, every other
        example's among them, and through them their viewers; the IK solver's tape over
        ``objective.compute_residuals`` still runs an example's objective, which imports it.)"""
        process = self._tape_process(tape)
        return [ref for ref in methods if ref.module in process or not self._demo_or_test(ref.module)]

    def _demo_or_test(self, module: str) -> bool:
        known: dict[str, bool] = self.memo("program.demo_or_test", dict)
        found = known.get(module)
        if found is None:
            found = known[module] = is_test_module(module) or is_demo_path(self.project_path(module))
        return found

    def _tape_process(self, tape: str) -> frozenset[str]:
        """The examples and tests a process that runs module ``tape`` may load (``loaded_with``);
        only those are kept: any library module may be loaded."""
        known: dict[str, frozenset[str]] = self.memo("program.tape_processes", dict)
        found = known.get(tape)
        if found is None:
            found = known[tape] = frozenset(m for m in self.loaded_with(tape) if self._demo_or_test(m))
        return found


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
        seen: set[int] = set()
        named = self._python_function_names()

        tails: dict[str, str] = {}  # a dotted name -> its last part (most names repeat)
        holds_kernels_only = self._holds_kernels_only

        def walk(roots: Iterable[Value], module: str, function: str | None = None) -> None:
            for value in roots:  # each root's values before the next root's, as read
                if id(value) in seen:
                    continue  # most roots: a name or constant shared by the file's values
                stack = [value]
                while stack:
                    v = stack.pop()
                    key = id(v)
                    if key in seen:
                        continue
                    seen.add(key)
                    kind, data = v.kind, v.data
                    if kind in _NAMED_KINDS and data.__class__ is str:
                        last = tails.get(data)
                        if last is None:
                            last = tails[data] = data.rpartition(".")[2]
                        if last in values:
                            stack.extend(v.items)  # the name is in already: what it holds need not be asked
                            continue
                        if last in named and holds_kernels_only(module, function, v):
                            continue  # ``self._launch(self.k.assemble)``: a kernel is launched, not called
                        if kind != "local":
                            values.add(last)
                        elif any(item.kind == "function" for item in v.items):
                            values.add(data)  # a nested ``def`` read as a value (the rest: what the local holds)
                    stack.extend(v.items)

        for module, facts in self.modules.items():
            for values_list in facts.globals.values():
                walk(values_list, module)
            for fields in facts.class_fields.values():
                walk((v for _name, v in fields), module)
            scopes: list[tuple] = []
            for fact in facts.functions.values():
                if fact.is_kernel:
                    continue  # a kernel's or Warp function's body hands no Python function around
                for values_list in (*fact.locals.values(), *fact.self_attrs.values(), fact.returns, fact.defaults.values()):
                    walk(values_list, module, fact.qualname)
                scopes.append((fact, fact.calls))
            scopes.append((None, [*facts.module_calls, *facts.main_calls]))
            for fact, calls in scopes:
                function = fact.qualname if fact is not None else None
                for call in calls:
                    walk(call.args, module, function)
                    if call.kwargs:
                        walk(call.kwargs.values(), module, function)
        methods = {call.callee.rsplit(".", 1)[1] for calls in self.untyped_calls().values() for call in calls}
        return frozenset(values), frozenset(methods)

    def _python_function_names(self) -> frozenset[str]:
        """The names of the project's Python functions (not kernels): the only names a value
        handed around can make an unknown call run."""
        return frozenset(fact.name for _ref, fact in self.functions() if not fact.is_kernel)

    def _holds_kernels_only(self, module: str, function: str | None, value: Value) -> bool:
        """``value`` (a name or attribute named like a Python function of the project) holds
        kernels and nothing else: handed on, it is launched, never called."""
        kernels = self.kernels_of_value(module, function, value)
        return bool(kernels) and all(isinstance(k, KernelRef) for k in kernels)

    def _calls_kept_or_dropped(self, ref: FunctionRef, calls: Sequence[CallFact]) -> list[CallFact]:
        """``calls`` (of ``ref``, ``<module>`` for a module's top level) and its untyped calls
        a batch dropped from them (``untyped_calls``), each once."""
        dropped = self.untyped_calls().get(ref, ())
        if not dropped:
            return list(calls)
        kept = {id(call) for call in calls}
        return [*calls, *(call for call in dropped if id(call) not in kept)]

    def untyped_calls(self) -> dict[FunctionRef, list[CallFact]]:
        """Per function (``<module>`` for a module's top level), its calls of a method on an
        object the model cannot type (``blk.assemble(q)``): any project method of that name
        may run. Read before a batch drops the calls that reach no project function. Only
        calls naming a project method: the others run no project code (``x.numpy()``,
        ``self.assertEqual(...)``: 97k of newton's 163k calls, whose facts this kept alive
        after the batch dropped them)."""
        return self.memo("program.untyped_calls", self._untyped_calls)

    def _untyped_calls(self) -> dict[FunctionRef, list[CallFact]]:
        out: dict[FunctionRef, list[CallFact]] = {}
        for module, facts in self.modules.items():
            scopes = [(fact, FunctionRef(module, fact.qualname), fact.calls) for fact in facts.functions.values()]
            scopes.append((None, FunctionRef(module, "<module>"), [*facts.module_calls, *facts.main_calls]))
            for fact, ref, calls in scopes:
                for call in calls:
                    callee = call.callee
                    if ("." in callee and self._methods_named(callee.rpartition(".")[2]) and not callee.startswith("warp.")
                            and not self._call_targets(module, fact, callee)):  # fmt: skip
                        out.setdefault(ref, []).append(call)
        return out


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

    # ------------------------------------------------------------------ unrecorded launches
    # A launch in code that runs only while Warp's tape is suspended (a solver's forward step
    # inside ``suspended_tape()``) is recorded by no tape, however the project's tapes reach
    # the calls into it: only a ``wp.Tape`` opened inside the suspension records there, and
    # ``taped`` reads that one. What may run while a tape records is everything reachable,
    # through calls outside suspended blocks, from where the project's own calls do not lead:
    # a function nothing in view calls (a caller outside, a callback, a lambda's), a module's
    # top level, a function handed around as a value, a ``__call__``, the calls inside tape
    # blocks; and, from a call of a method on an object the model cannot type, every project
    # method of that name. A function the project calls itself only where the tape is
    # suspended is taken for its own helper: the API is what it does not call.

    def recordable_functions(self) -> frozenset[FunctionRef]:
        """The functions that may run while a tape records (above); every function where the
        program suspends no tape."""
        return self.memo("program.recordable_functions", self._recordable_functions)

    def _recordable_functions(self) -> frozenset[FunctionRef]:
        return frozenset(self._recordable_walk()[0])

    def _recordable_walk(self) -> tuple[set[FunctionRef], set[FunctionRef]]:
        """(the recordable functions, those of them entered where the model sees no call:
        roots, values, ``__call__``, methods an untyped call names)."""
        return self.memo("program.recordable_walk", self._walk_recordable)

    def _walk_recordable(self) -> tuple[set[FunctionRef], set[FunctionRef]]:
        values, methods = self.loose_names()
        unseen: set[FunctionRef] = set()  # entered by no call the model resolves
        for ref, fact in self.functions():
            if fact.is_kernel:
                continue
            method = fact.class_name is not None and fact.parent is None
            called = bool(self.callers(ref)) or (method and fact.name in methods)
            if not called or fact.name in values or (method and fact.name == "__call__"):
                unseen.add(ref)
        for module, facts in self.modules.items():
            for alias, target in facts.method_aliases.items():
                if alias.endswith(".__call__"):
                    unseen.add(FunctionRef(module, target))
        stack = list(unseen)
        for module, facts in self.modules.items():
            top = self._calls_kept_or_dropped(FunctionRef(module, "<module>"), [*facts.module_calls, *facts.main_calls])
            stack.extend(self._unsuspended_targets(module, None, top, unseen))
            for fact in facts.functions.values():
                calls = self._calls_kept_or_dropped(FunctionRef(module, fact.qualname), fact.calls)
                stack.extend(self._unsuspended_targets(module, fact, [c for c in calls if c.withs and self.taped(c)], unseen))
        # (its own targets only: those of the calls, kept or dropped, outside suspensions)
        seen = self.called_closure(stack, skip=lambda _call: True, also=lambda ref, fact: self._unsuspended_targets(
            ref.module, fact, self._calls_kept_or_dropped(ref, fact.calls), unseen))  # fmt: skip
        return seen, unseen

    def _unsuspended_targets(self, module: str, caller: FunctionFact | None, calls: Sequence[CallFact],
                             unseen: set[FunctionRef]) -> list[FunctionRef]:  # fmt: skip
        """The project functions ``calls`` (outside suspended blocks) may run; those of an
        untyped method call (any method of its name) go into ``unseen`` too."""
        out: list[FunctionRef] = []
        for call in calls:
            if call.withs and self.suspended(call):
                continue
            targets = self._call_targets(module, caller, call.callee)
            if not targets and call.callee.startswith("warp."):
                replaced = self._patched(call.callee)
                targets = [replaced] if replaced is not None else []
            if not targets and "." in call.callee and not call.callee.startswith("warp."):
                targets = self._methods_named(call.callee.rsplit(".", 1)[1])
                unseen.update(targets)
            out.extend(targets)
        return out

    def launch_recordable(self, module: str, launch: LaunchFact) -> bool:
        """A tape may record ``launch`` (of ``module``): it sits in a tape block, or in a
        recordable function outside every suspended block (or at a module's top level)."""
        if launch.adjoint is not None and launch.adjoint != Value("const", False):
            return True
        if self.taped(launch):
            return True
        if launch.withs and self.suspended(launch):
            return False
        return launch.function is None or FunctionRef(module, launch.function) in self.recordable_functions()

    def unrecorded_modules(self) -> frozenset[str]:
        """The Warp modules (``module_key``: a Python module's, ``unique:...`` a unique
        kernel's) whose kernels the program launches, and only where no tape records: empty
        where the program suspends no tape, or a launch that may be recorded runs a kernel
        the model cannot name (or cannot place in a module)."""
        return self.memo("program.unrecorded_modules", self._unrecorded_modules)

    def _unrecorded_modules(self) -> frozenset[str]:
        if not self.suspends_anything():
            return frozenset()
        launched: set[str] = set()
        recorded: set[str] = set()
        placed = self._placed_launches()
        for module, facts in self.modules.items():
            for index, launch in enumerate(facts.launches):
                if not launch.kind.startswith("launch"):
                    continue
                recordable = self.launch_recordable(module, launch)
                for target in self.launch_kernels(module, index):
                    if not isinstance(target, KernelRef):
                        if recordable and not self._placed_helper_launch(module, launch, placed, 0):
                            return frozenset()  # a recorded launch of a kernel the model cannot name
                        continue
                    keys = self.kernel_modules(target)
                    if any(key is UNRESOLVED for key in keys):
                        return frozenset()
                    (recorded if recordable else launched).update(_module_key(key) for key in keys)
        return frozenset(launched - recorded)

    def _placed_launches(self) -> dict[tuple[str, Any], LaunchFact]:
        """(module, span) -> the launch there: a helper's launch placed at a call site
        (``_add_helper_launches``) is found at the call's span."""
        return {(module, launch.span): launch for module, facts in self.modules.items() for launch in facts.launches}

    def _placed_helper_launch(self, module: str, launch: LaunchFact, placed: dict, depth: int) -> bool:
        """A helper's launch of the kernel it is handed (``def _launch(self, kernel, ...)``)
        whose every call site the model placed a launch of named kernels at, and that no
        unseen call enters (``_walk_recordable``): its kernels are the placed launches'."""
        if launch.kernel is None or launch.kernel.kind != "param" or launch.function is None or depth > 2:
            return False
        ref = FunctionRef(module, launch.function)
        if ref in self._recordable_walk()[1]:
            return False
        callers = self.callers(ref)
        if not callers:
            return False
        for _caller, caller_module, call in callers:
            at_site = placed.get((caller_module, call.span))
            if at_site is None or at_site is launch:
                return False
            if at_site.kernel is not None and at_site.kernel.kind == "param":
                if not self._placed_helper_launch(caller_module, at_site, placed, depth + 1):
                    return False
        return True
