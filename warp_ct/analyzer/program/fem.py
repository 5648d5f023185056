"""warp.fem's calls and the tapes that may record them.

``fem.integrate(...)`` / ``fem.interpolate(...)`` build a kernel for the user's integrand (a
module of its own, with the call's ``kernel_options``); a tape differentiates it only when
the call runs inside a ``with wp.Tape()`` block: written there, or in a function that a call
made inside such a block runs (through calls, across files).
"""

from __future__ import annotations

from warp_ct.analyzer.facts import FemCallFact, FunctionFact, Value
from warp_ct.analyzer.program.base import FunctionRef

# warp.fem's node operators: an integrand applying one to its test or trial field is assembled
# "generic" by default (``_pick_assembly_strategy``), without the dispatch kernel.
_NODE_OPERATORS = frozenset({
    "at_node", "node_count", "node_index", "node_inner_weight", "node_outer_weight",
    "node_inner_weight_gradient", "node_outer_weight_gradient",
})  # fmt: skip
_DEPTH = 4  # how far a value (``self._test = test = fem.make_test(...)``) or an integrand's helpers are followed


class FemCalls:
    """Part of :class:`Program` (``self`` is the program)."""

    def fem_calls(self) -> list[tuple[str, FemCallFact]]:
        """(Python module, call) of every ``fem.integrate`` / ``fem.interpolate`` in the program."""
        return self.memo("program.fem_calls", lambda: [
            (module, call) for module, facts in self.modules.items() for call in facts.fem_calls
        ])  # fmt: skip

    def fem_call_taped(self, module: str, call: FemCallFact) -> bool:
        """Whether a tape may record ``call``: it sits in a tape block, in a function a tape
        block's calls run, or in a module whose tape blocks call what the model cannot follow
        (or one such a module imports)."""
        if self.taped(call):
            return True
        if call.withs and self.suspended(call):
            return False  # ``with suspended_tape():``: no tape around its function records it
        runs, opaque = self.memo("program.taped_flows", self._taped_flows)
        if call.function is not None:
            ref: FunctionRef | None = FunctionRef(module, call.function)
            while ref is not None:  # a nested function runs where its outer one is called, or later
                if ref in runs:
                    return True
                fact = self.function(ref)
                ref = FunctionRef(module, fact.parent) if fact is not None and fact.parent else None
        return module in opaque

    def fem_integrand_key(self, module: str, call: FemCallFact) -> tuple[str, str] | None:
        """Where the call's integrand is defined, (Python module, qualname); an integrand the
        model cannot resolve is keyed by the calling module and its name as written there."""
        if call.integrand is None:
            return None
        ref = self.fem_integrand(module, call)
        return (ref.module, ref.qualname) if ref is not None else ("?" + module, call.integrand)

    def fem_integrand(self, module: str, call: FemCallFact) -> FunctionRef | None:
        """The project function the call's integrand names (None: not one the model resolves)."""
        if call.integrand is None:
            return None
        caller = self.function(FunctionRef(module, call.function)) if call.function is not None else None
        return self.resolve_call(module, caller, call.integrand)

    def taped_fem_integrands(self) -> frozenset[tuple[str, str]]:
        """The integrands (keyed by their definition: :meth:`fem_integrand_key`) of the fem calls
        a tape may record: an untaped call of one of them with the same fields shares its kernel.
        Keyed by definition, not by name: two scripts' ``hooke_elasticity_form`` are two integrands,
        whichever files a run lints together."""
        return self.memo("program.taped_fem_integrands", lambda: frozenset(
            key for module, call in self.fem_calls()
            if (key := self.fem_integrand_key(module, call)) is not None and self.fem_call_taped(module, call)
        ))  # fmt: skip

    def fem_call_shares_taped_kernel(self, module: str, call: FemCallFact) -> bool:
        """A taped call of the same integrand surely passes the same fields: under each key a
        value made by one and the same call (``fem.make_discrete_field(space=self._ls_space)``
        both times), so warp.fem builds one kernel for both (keyed by the integrand and its
        fields' names) and the tape runs its adjoint."""
        key = self.fem_integrand_key(module, call)
        if key is None or call.fields is None:
            return False
        mine = self._fem_field_makers(module, call)
        if mine is None:
            return False
        for other_module, other in self.fem_calls():
            if (other is call or other.fields is None or self.fem_integrand_key(other_module, other) != key
                    or not self.fem_call_taped(other_module, other)):  # fmt: skip
                continue
            if self._fem_field_makers(other_module, other) == mine:
                return True
        return False

    def _fem_field_makers(self, module: str, call: FemCallFact) -> dict[str, Value] | None:
        """Each field's key -> the one call that makes its value (through locals and ``self.x``);
        None when a key is not a constant or a value has no single maker the model can tell."""
        caller = self.function(FunctionRef(module, call.function)) if call.function is not None else None
        makers: dict[str, Value] = {}
        for key, value in call.fields or ():
            found = self._makers(module, caller, value, 0) if key is not None else None
            if found is None or len(found) != 1:
                return None
            makers[key] = next(iter(found))
        return makers

    def _makers(self, module: str, caller: FunctionFact | None, value: Value, depth: int) -> set[Value] | None:
        if depth > _DEPTH:
            return None
        if value.kind in ("call", "method"):
            return {value}
        if value.kind == "local" and value.items:
            found: set[Value] = set()
            for item in value.items:
                sub = self._makers(module, caller, item, depth + 1)
                if sub is None:
                    return None
                found |= sub
            return found
        if value.kind == "attr" and value.items and value.items[0].kind == "self" and caller is not None:
            assigned = self._self_attr_values(module, caller, value.data)
            if not assigned:
                return None
            found = set()
            for fact, item in assigned:
                sub = self._makers(module, fact, item, depth + 1)
                if sub is None:
                    return None
                found |= sub
            return found
        return None

    def fem_call_dispatches(self, module: str, call: FemCallFact) -> bool:
        """Whether warp.fem surely builds its dispatch kernel for ``call`` as well as the
        integrand's (``integrate.py``: ``_generate_auxiliary_kernels``, for a test field made
        local by the "dispatch" assembly): an ``fem.integrate`` passing a test field
        (``fem.make_test(...)``) whose ``assembly=`` is "dispatch", or is not passed and the
        integrand (resolved, with the project functions it calls) applies no node operator
        (``fem.at_node``, ...). That kernel is a module of warp.fem's
        (``warp._src.fem.field.virtual.dyn.dispatch_{linear,bilinear}_kernel_fn_*``) built with
        warp.fem's module options plus the call's ``kernel_options``: the integrand module's
        ``wp.set_module_options`` never reaches it."""
        if call.kind != "integrate" or call.fields is None:
            return False
        if call.assembly is not None and call.assembly != Value("const", "dispatch"):
            return False  # "nodal" / "generic", or a value the model cannot read
        caller = self.function(FunctionRef(module, call.function)) if call.function is not None else None
        if not any(self._fem_field(module, caller, value, "warp.fem.make_test", 0) for _key, value in call.fields):
            return False
        if call.assembly is not None:
            return True
        integrand = self.fem_integrand(module, call)
        return integrand is not None and self._free_of_node_operators(integrand, set())

    def fem_call_bilinear(self, module: str, call: FemCallFact) -> bool:
        """The call surely passes a trial field (``fem.make_trial(...)``): a bilinear form."""
        caller = self.function(FunctionRef(module, call.function)) if call.function is not None else None
        return any(self._fem_field(module, caller, value, "warp.fem.make_trial", 0) for _key, value in call.fields or ())

    def _fem_field(self, module: str, caller: FunctionFact | None, value: Value, maker: str, depth: int) -> bool:
        """``value`` is made by ``maker`` (``warp.fem.make_test``) for sure: a call of it, a local
        every assignment of which is one, or ``self.x`` every assignment of which (in the class's
        methods) is one."""
        if depth > _DEPTH:
            return False
        if value.kind == "call":
            return value.data == maker
        if value.kind == "local":
            return bool(value.items) and all(self._fem_field(module, caller, v, maker, depth + 1) for v in value.items)
        if value.kind == "attr" and value.items and value.items[0].kind == "self" and caller is not None:
            assigned = self._self_attr_values(module, caller, value.data)
            return bool(assigned) and all(self._fem_field(module, fact, v, maker, depth + 1) for fact, v in assigned)
        return False

    def _self_attr_values(self, module: str, caller: FunctionFact, attr: str) -> list[tuple[FunctionFact, Value]]:
        """What the methods of ``caller``'s class assign to ``self.<attr>``, with the method
        that assigns it (empty: not a method, or nothing seen)."""
        if caller.class_name is None:
            return []
        return [
            (fact, v) for fact in self.modules[module].functions.values()
            if fact.class_name == caller.class_name for v in fact.self_attrs.get(attr, ())
        ]

    def _free_of_node_operators(self, ref: FunctionRef, seen: set[FunctionRef]) -> bool:
        """The function (an integrand) applies none of warp.fem's node operators, nor do the
        project functions it calls; a call the model cannot follow (other than Warp's own API or
        a parameter: a field evaluated) answers no."""
        if ref in seen:
            return True
        if len(seen) > 16:
            return False
        seen.add(ref)
        fact = self.function(ref)
        if fact is None:
            return False
        for call in fact.calls:
            if call.callee.startswith("warp."):
                if call.callee.rsplit(".", 1)[-1] in _NODE_OPERATORS:
                    return False
                continue
            if call.callee in fact.params:
                continue  # ``u(s)``: a field evaluated
            if self._warp_function(ref.module, call.callee):
                continue  # a ``@wp.func``: takes no warp.fem field, so applies no node operator
            if "." not in call.callee and self._fem_made(ref.module, fact, call.callee, 0):
                continue  # ``U_cell = fem.cells(U); U_cell(s)``: a field warp.fem made, evaluated
            target = self.resolve_call(ref.module, fact, call.callee)
            if target is None or not self._free_of_node_operators(target, seen):
                return False
        return True

    def _warp_function(self, module: str, callee: str) -> bool:
        """``callee`` names a Warp function (``@wp.func``) of the project: one of ``module``'s, or
        one of the module its dotted prefix names (``from helpers import velocity``)."""
        where, _, name = callee.rpartition(".")
        facts = self.modules.get(where or module)
        return facts is not None and any(kernel.name == name and kernel.function is None for kernel in facts.kernels)

    def on_fem_object(self, module: str, caller: FunctionFact | None, callee: str) -> bool:
        """``callee`` is a method called on a warp.fem object for sure (``field.trace()``,
        ``self._p_space.node_count()``): warp's own package code, which launches no kernel of the
        project's. The receiver is a local or ``self.x`` every assignment of which is made by
        warp.fem (``fem.make_discrete_field(...)``) or by a method of such an object
        (``self._space.make_field()``)."""
        head, _, _method = callee.rpartition(".")
        if not head or caller is None:
            return False
        return self._fem_made(module, caller, head, 0)

    def _fem_made(self, module: str, caller: FunctionFact, dotted: str, depth: int) -> bool:
        if depth > _DEPTH:
            return False
        if dotted.startswith("warp.fem."):
            return True
        if dotted.startswith("self.") and dotted.count(".") == 1:
            values = self._self_attr_values(module, caller, dotted[5:])
        elif "." not in dotted and dotted in caller.locals:
            values = [(caller, v) for v in caller.locals[dotted]]
        else:
            return False
        return bool(values) and all(self._fem_value(module, fact, v, depth + 1) for fact, v in values)

    def _fem_value(self, module: str, caller: FunctionFact, value: Value, depth: int) -> bool:
        if depth > _DEPTH:
            return False
        if value.kind == "call" and isinstance(value.data, str):
            if value.data.startswith("warp.fem."):
                return True
            head, _, _method = value.data.rpartition(".")
            return bool(head) and self._fem_made(module, caller, head, depth + 1)
        if value.kind == "local":
            return bool(value.items) and all(self._fem_value(module, caller, v, depth + 1) for v in value.items)
        if value.kind == "attr" and value.items and value.items[0].kind == "self":
            return self._fem_made(module, caller, "self." + str(value.data), depth + 1)
        return False

    def _taped_flows(self) -> tuple[frozenset[FunctionRef], frozenset[str]]:
        """(The functions a tape block may run: the targets of the calls made inside tape blocks
        and what they call, transitively; the Python modules a tape over calls the model cannot
        follow may reach: the tape's own and those it imports directly.)"""
        starts: list[FunctionRef] = []
        opaque: set[str] = set()
        for module, facts in self.modules.items():
            scopes = [(fact, fact.calls) for fact in facts.functions.values()]
            scopes.append((None, facts.module_calls + facts.main_calls))
            for fact, calls in scopes:
                for call in calls:
                    if not self.taped(call):
                        continue
                    targets = list(self._call_targets(module, fact, call.callee))
                    patched = self._patched(call.callee) if not targets else None
                    if patched is not None:
                        targets.append(patched)
                    named = self.unfollowed_in_tape(module, fact, call.callee, module) if not targets else None
                    if named is not None:
                        opaque.add(module)
                        targets.extend(named)
                    starts.extend(targets)
        seen = self.taped_closure(starts)
        reach = set(opaque)
        for module in opaque:
            reach |= self.imported_directly(module)
        return frozenset(seen), frozenset(reach)

