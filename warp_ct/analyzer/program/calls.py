"""Where calls go: the project function a call reaches, the callers of a function, and the
functions a flow can run.
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator, Sequence

from warp_ct.analyzer.facts import (
    CallFact,
    FileFacts,
    FunctionFact,
    KernelFact,
    Value,
)
from warp_ct.analyzer.program.base import (
    _NO_TARGETS,
    FunctionRef,
    KernelRef,
    argument_passed,
)

# The last part of decorators that make a method an attribute read (``functools.cached_property``...).
_PROPERTY_DECORATORS = frozenset({"property", "cached_property"})


def _binds(program: Calls, module: str, caller: FunctionFact, name: str) -> bool:
    """Whether ``_resolve_call`` reads ``name`` from the caller: ``self``/``cls``/``super``, or a local
    or loop table of the caller or an enclosing function. Otherwise the call resolves as it
    would at module level (most calls: ``np.zeros``, ``helper(...)``, ``pkg.make()``)."""
    if name in ("self", "cls", "super"):
        return True
    scope: FunctionFact | None = caller
    while scope is not None:
        if scope.locals.get(name) or name in scope.loop_tables:
            return True
        scope = program.function(FunctionRef(module, scope.parent)) if scope.parent else None
    return False


def _resolution_interface(facts: FileFacts) -> tuple:
    """What resolving a call of another module can read of ``facts`` (``_resolve_call`` and
    what it asks: ``resolve_dotted``, ``_star_source``, ``function_named``, ``method``,
    ``_class_of_value``, ``is_property``): its imports, top-level names, ``*`` re-exports,
    functions (with their decorators), classes with their bases, and method aliases. An edit
    inside a function's body leaves it as it was."""
    star = (facts.exports or {}).get("*")
    return (
        facts.aliases, frozenset(facts.globals), star.target if star is not None else None,
        {qualname: (fact.decorators, _object_interface(fact)) for qualname, fact in facts.functions.items()},
        facts.classes, facts.method_aliases,
    )  # fmt: skip


def _object_interface(fact: FunctionFact) -> tuple:
    """What calls elsewhere read of a function's body to tell an object's class: the calls
    its ``return``s make (``_class_returned``) and those it stores on ``self`` (a subclass's
    ``self.x.m()`` through ``self_attr_values``)."""
    returns = tuple(fact.returns)
    if not fact.self_attrs:
        return returns
    return returns, tuple((name, tuple(values)) for name, values in fact.self_attrs.items())


_RESOLVE = object()  # reusable_callers: a call to resolve again


def _atexit_calls(facts: FileFacts) -> list[CallFact]:
    """``atexit.register(f)`` as calls of ``f`` (the module's ``<atexit>`` flow)."""
    return [CallFact(name, (), {}, span, 0, 0, False) for name, span in facts.atexit_targets]


class Calls:
    """Part of :class:`Program` (``self`` is the program)."""

    def function(self, ref: FunctionRef) -> FunctionFact | None:
        facts = self.modules.get(ref.module)
        return facts.functions.get(ref.qualname) if facts else None


    def kernel(self, ref: KernelRef) -> KernelFact:
        return self.defining_facts(ref.module).kernels[ref.index]


    def defining_facts(self, module: str) -> FileFacts:
        """The facts of the module a kernel reference names: a project module, or one read
        from outside the project for a kernel question (``Kernels.outside_kernels``)."""
        facts = self.modules.get(module)
        if facts is None and self._outside is not None:
            facts = self._outside(module)
        if facts is None:
            raise KeyError(module)
        return facts


    def outside_facts(self, module: str) -> FileFacts | None:
        """The facts of ``module`` read from outside the project (None: a project module,
        or none found there)."""
        if module in self.modules or self._outside is None:
            return None
        return self._outside(module)


    def is_outside(self, module: str) -> bool:
        """Whether ``module`` is read from outside the project (it is never reported, and
        its code is no caller or launcher in the program)."""
        return module not in self.modules


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
        return self.inherited_method(module, class_name, method, depth)


    def inherited_method(self, module: str, class_name: str, method: str, depth: int = 0) -> FunctionRef | None:
        """``method`` as the class's project bases define it, not the class itself: what
        ``super().method(...)`` in the class runs."""
        facts = self.modules.get(module)
        if facts is None or depth > 6:
            return None
        for base in facts.classes.get(class_name, ()):
            if not base:
                continue
            if base in facts.classes:
                found = self.method(module, base, method, depth + 1)
            else:
                head = base.split(".")[0]
                resolved = self.resolve_dotted(facts.aliases.get(head, head) + base[len(head):])
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
        if parts[0] == "super" and len(parts) == 2 and caller is not None:  # see ``calls_super`` of the facts
            class_name = self.class_of(FunctionRef(module, caller.qualname))
            return self.inherited_method(module, class_name, parts[1]) if class_name is not None else None
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
                    # What the table holds may come from anywhere (the callers' arguments):
                    # this call is resolved anew in the next program.
                    self._loop_resolving.add((module, caller.qualname))
                    self._loop_resolving.add((module, caller.qualname, callee))
                    if len(parts) != 2:
                        return None
                    # The method of the elements' class: one target only where every element the
                    # model sees is an object of a class with that one method (a table of objects
                    # of several classes calls several methods: not one callee).
                    targets = set()
                    for item_module, item_function, item in self._picked(module, scope.qualname, scope.loop_tables[parts[0]], 0) or ():
                        cls = self._class_of_value(item_module, item, item_function)
                        targets.add(self.method(cls[0], cls[1], parts[1]) if cls is not None else None)
                    return next(iter(targets)) if len(targets) == 1 else None  # None among them: unknown
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
        return self._class_returned(module, name)


    def _class_returned(self, module: str, name: str, depth: int = 0) -> tuple[str, str] | None:
        """The class whose object a project function returns from every ``return`` (``def
        shift_for(dtype): return Shift(...)``), through factories returning factories' objects."""
        if depth > 4:
            return None
        facts = self.modules.get(module)
        ref = FunctionRef(module, name) if facts is not None and name in facts.functions else None
        if ref is None:
            resolved = self.resolve_dotted(name)
            target = self.modules.get(resolved[0]) if resolved is not None else None
            ref = FunctionRef(*resolved) if target is not None and resolved[1] in target.functions else None  # type: ignore[misc]
        fact = self.function(ref) if ref is not None else None
        if fact is None or not fact.returns:
            return None
        found: set[tuple[str, str]] = set()
        for returned in fact.returns:
            if returned.kind != "call" or not returned.data:
                return None
            target_facts = self.modules[ref.module]  # type: ignore[union-attr]
            if returned.data in target_facts.classes:
                found.add((ref.module, returned.data))  # type: ignore[union-attr]
                continue
            where = self.resolve_dotted(returned.data)
            if where is not None and where[0] in self.modules and where[1] in self.modules[where[0]].classes:
                found.add(where)
                continue
            inner = self._class_returned(ref.module, returned.data, depth + 1)  # type: ignore[union-attr]
            if inner is None:
                return None
            found.add(inner)
        return found.pop() if len(found) == 1 else None


    def self_attr_values(self, module: str, class_name: str, attr: str) -> list[tuple[FunctionRef, Value]]:
        """(method, value) for each assignment to ``self.<attr>`` in the methods of the class
        and of its project bases (``_PlanBase.__init__`` sets what ``_RefitPlan.update``
        launches), wherever in the class (``__init__``, ``_construct_warp()``, a setup method)."""
        out: list[tuple[FunctionRef, Value]] = []
        for where, name in self.class_chain(module, class_name):
            out.extend(self._own_self_attrs(where, name).get(attr, ()))
        return out


    def _own_self_attrs(self, module: str, class_name: str) -> dict[str, list[tuple[FunctionRef, Value]]]:
        by_attr = self._self_attrs.get((module, class_name))
        if by_attr is None:
            by_attr = self._self_attrs[(module, class_name)] = {}
            facts = self.modules.get(module)
            prefix = class_name + "."
            for qualname, fact in facts.functions.items() if facts is not None else ():
                if qualname.startswith(prefix):
                    for name, values in fact.self_attrs.items():
                        by_attr.setdefault(name, []).extend((FunctionRef(module, qualname), v) for v in values)
        return by_attr


    def class_chain(self, module: str, class_name: str) -> tuple[tuple[str, str], ...]:
        """The class and its project bases, transitively (each once, the class first)."""
        key = ("class chain", module, class_name)
        found = self._memo.get(key)
        if found is None:
            chain: list[tuple[str, str]] = []
            stack = [(module, class_name)]
            while stack and len(chain) < 32:
                where = stack.pop()
                if where in chain:
                    continue
                chain.append(where)
                facts = self.modules.get(where[0])
                bases = facts.classes.get(where[1], ()) if facts is not None else ()
                stack.extend(base for base in (self._project_class(where[0], b) for b in reversed(bases)) if base is not None)
            found = self._memo[key] = tuple(chain)
        return found


    def _project_class(self, module: str, name: str) -> tuple[str, str] | None:
        """(module, class qualname) of the class ``name`` (dotted, as a base is written in
        ``module``) when the project defines it."""
        facts = self.modules.get(module)
        if facts is None or not name:
            return None
        if name in facts.classes:
            return module, name
        head = name.split(".")[0]
        resolved = self.resolve_dotted(facts.aliases.get(head, head) + name[len(head):])
        target = self.modules.get(resolved[0]) if resolved is not None else None
        if target is not None and resolved[1] in target.classes:  # type: ignore[index]
            return resolved
        return None


    def callers(self, ref: FunctionRef) -> list[tuple[FunctionRef | None, str, CallFact]]:
        """(calling function or None for module level, calling module, call) per call site."""
        if self._callers is None:
            self._callers = {}
            reused, self._reused_callers = self._reused_callers, {}
            try:
                for module, facts in self.modules.items():
                    segments = self._module_callers(module, facts, reused.get(module, {}))
                    if self._reusable:
                        self._callers_by_module[module] = segments
            except BaseException:  # a time limit: gathered again, whole, when next asked
                self._callers, self._reused_callers = None, reused
                self._callers_by_module.clear()
                raise
        return self._callers.get(ref, [])


    def _module_callers(self, module: str, facts: FileFacts, reused: dict[str, list]) -> dict[str, list]:
        """Enter one module's calls into ``_callers``, in order, each as it resolves (a call
        resolved through a loop table may ask for the callers entered so far), taking the
        callee from ``reused`` where it holds one. Returns the callee of each call (None:
        none in the project) per calling function, and ``"<module>"``, ``"<main>"``,
        ``"<atexit>"`` for the module's own calls."""
        segments: dict[str, list] = {}
        for qualname, fact in facts.functions.items():
            self._enter_calls(module, qualname, FunctionRef(module, qualname), fact, fact.calls, reused, segments)
        self._enter_calls(module, "<module>", None, None, facts.module_calls, reused, segments)
        self._enter_calls(module, "<main>", FunctionRef(module, "<main>"), None, facts.main_calls, reused, segments)
        if facts.atexit_targets:
            self._enter_calls(module, "<atexit>", FunctionRef(module, "<atexit>"), None, _atexit_calls(facts), reused, segments)
        return segments


    def _enter_calls(self, module: str, name: str, caller: FunctionRef | None, fact: FunctionFact | None,
                     calls: list[CallFact], reused: dict[str, list], segments: dict[str, list]) -> None:  # fmt: skip
        callers = self._callers
        assert callers is not None
        known = reused.get(name)
        if known is not None and not (known and known[-1] is _RESOLVE):  # every callee known (see reusable_callers)
            for call, target in zip(calls, known):
                if target is not None:
                    callers.setdefault(target, []).append((caller, module, call))
            segments[name] = known
            return
        targets: list[FunctionRef | None] = []
        for index, call in enumerate(calls):
            target = known[index] if known is not None else _RESOLVE
            if target is _RESOLVE:
                target = self.resolve_call(module, fact, call.callee)
            targets.append(target)
            if target is not None:
                callers.setdefault(target, []).append((caller, module, call))
        segments[name] = targets


    def reusable_callers(self, previous: Calls) -> dict[str, dict[str, list]]:
        """The callees ``previous`` (the program of the same files before an edit) found
        and this program would find again, per module and calling function (``_RESOLVE``
        where it must resolve again): those of the calls of a module whose facts are the
        same objects, except calls resolved through a loop table, while every edited module
        still offers the names calls are resolved through (``_resolution_interface``). Other
        than through a loop table (whose values may come from any caller), a call resolves
        through the calling module's own facts and, in other modules, only through those
        names (imports, re-exports, classes, methods, property decorators)."""
        if previous._callers is None or list(previous._sources) != list(self._sources):
            return {}
        edited = [m for m, facts in self._sources.items() if previous._sources[m] is not facts]
        if any(_resolution_interface(previous._sources[m]) != _resolution_interface(self._sources[m]) for m in edited):
            return {}
        loop_resolving = previous._loop_resolving
        reusable: dict[str, dict[str, list]] = {}
        for module, segments in previous._callers_by_module.items():
            if module in edited:
                continue
            functions = self._sources[module].functions
            reusable[module] = kept = dict(segments)
            for qualname, targets in segments.items():
                if (module, qualname) in loop_resolving:
                    calls = functions[qualname].calls
                    again = [_RESOLVE if (module, qualname, call.callee) in loop_resolving else target
                             for call, target in zip(calls, targets)]  # fmt: skip
                    kept[qualname] = [*again, _RESOLVE]  # the last item says: some to resolve
        return reusable


    def reaching(self, targets: Iterable[FunctionRef]) -> set[FunctionRef]:
        """The functions whose run can reach one of ``targets`` (themselves included), and
        ``<module>`` flows of modules whose top level calls into them: the only flows worth
        inlining when a question is about what those targets do."""
        return self._callers_closure(targets, enclosing=True)


    def called_closure(self, starts: Iterable[FunctionRef], skip: Callable[[CallFact], bool] | None = None,
                       *, patched: bool = False,
                       also: Callable[[FunctionRef, FunctionFact], Iterable[FunctionRef]] | None = None,
                       ) -> set[FunctionRef]:  # fmt: skip
        """``starts`` and every project function their runs call, transitively (the other
        direction from ``reaching``), but for the calls ``skip`` leaves out; ``patched``:
        a call of a Warp API the project replaced (``wp.sim.collide = collide``) runs the
        replacement; ``also``: more functions a reached one runs besides its calls."""
        seen: set[FunctionRef] = set()
        stack = list(starts)
        while stack:
            ref = stack.pop()
            if ref in seen:
                continue
            seen.add(ref)
            fact = self.function(ref)
            if fact is None:
                continue
            for call in fact.calls:
                if skip is not None and skip(call):
                    continue
                targets = self._call_targets(ref.module, fact, call.callee)
                if patched and not targets and call.callee.startswith("warp."):
                    replaced = self._patched(call.callee)
                    targets = [replaced] if replaced is not None else []
                stack.extend(t for t in targets if t not in seen)
            if also is not None:
                stack.extend(also(ref, fact))
        return seen


    def calling(self, targets: Iterable[FunctionRef]) -> set[FunctionRef]:
        """The flows that run one of ``targets`` through at least one call (a module body
        for its top-level calls), transitively: those whose ``effects`` hold a target's
        events as a callee's. Unlike ``reaching``, neither the targets themselves (unless
        one calls another) nor the functions that merely define them."""
        starts: set[FunctionRef] = set()
        for target in targets:
            for caller, module, _call in self.callers(target):
                if caller is None or caller.qualname == "<main>":
                    starts.add(FunctionRef(module, "<module>"))
                elif caller.qualname != "<atexit>":
                    starts.add(caller)
        return self._callers_closure(starts, enclosing=False)


    def _callers_closure(self, starts: Iterable[FunctionRef], enclosing: bool,
                         more_callers: dict[FunctionRef, list[FunctionRef]] | None = None,
                         skip: Callable[[CallFact], bool] | None = None) -> set[FunctionRef]:  # fmt: skip
        """``starts`` and every flow that calls into them (a module body for its top-level
        calls), transitively; ``enclosing``: the functions that define them, too; ``skip``:
        the calls left out."""
        seen: set[FunctionRef] = set()
        stack = list(starts)
        while stack:
            ref = stack.pop()
            if ref in seen:
                continue
            seen.add(ref)
            for caller, module, call in self.callers(ref):
                if skip is not None and skip(call):
                    continue
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
        # A call of a parameter runs what the callers pass (``fn(obj)`` in a helper handed a
        # function): kept for what a tape records (``_unfollowed_runs``).
        return (call.taped or call.callee.startswith("warp.") or bool(self._call_targets(module, caller, call.callee))
                or bool(call.withs) and self.taped(call)  # type: ignore[attr-defined]
                or caller is not None and call.callee in caller.params)  # fmt: skip


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


    def passed_values(self, ref: FunctionRef, param: str) -> list[tuple[str, str | None, Value]] | None:
        """(module, function or None, value) of what each call site passes for ``param``: the
        argument where it is written, the default where a call leaves it out; None when a
        call leaves out a parameter that has no default."""
        fact = self.function(ref)
        out: list[tuple[str, str | None, Value]] = []
        for caller_module, caller_name, _call, arg in self.arguments_for(ref, param):
            if arg is None:
                default = fact.defaults.get(param) if fact is not None else None
                if default is None:
                    return None
                out.append((ref.module, None, default))
            else:
                out.append((caller_module, caller_name, arg))
        return out


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
