"""warp.fem's calls and the tapes that may record them.

``fem.integrate(...)`` / ``fem.interpolate(...)`` build a kernel for the user's integrand (a
module of its own, with the call's ``kernel_options``); a tape differentiates it only when
the call runs inside a ``with wp.Tape()`` block: written there, or in a function that a call
made inside such a block runs (through calls, across files).
"""

from __future__ import annotations

from warp_ct.analyzer.facts import FemCallFact
from warp_ct.analyzer.program.base import FunctionRef
from warp_ct.analyzer.program.tapes import _harmless_in_tape


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
        if call.taped:
            return True
        runs, opaque = self.memo("program.taped_flows", self._taped_flows)
        if call.function is not None:
            ref: FunctionRef | None = FunctionRef(module, call.function)
            while ref is not None:  # a nested function runs where its outer one is called, or later
                if ref in runs:
                    return True
                fact = self.function(ref)
                ref = FunctionRef(module, fact.parent) if fact is not None and fact.parent else None
        return module in opaque

    def taped_fem_integrands(self) -> frozenset[str]:
        """The integrands (the last part of the name, as written) of the fem calls a tape may
        record: an untaped call of one of them with the same fields shares its kernel."""
        return self.memo("program.taped_fem_integrands", lambda: frozenset(
            call.integrand.rsplit(".", 1)[-1] for module, call in self.fem_calls()
            if call.integrand is not None and self.fem_call_taped(module, call)
        ))  # fmt: skip

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
                    if not call.taped:
                        continue
                    targets = list(self._call_targets(module, fact, call.callee))
                    patched = self._patched(call.callee) if not targets else None
                    if patched is not None:
                        targets.append(patched)
                    if not targets and not _harmless_in_tape(call.callee):
                        opaque.add(module)
                        if "." in call.callee:  # ``self.solver.step()``: any project method of that name
                            targets.extend(self._methods_named(call.callee.rsplit(".", 1)[1]))
                    starts.extend(targets)
        seen: set[FunctionRef] = set()
        stack = starts
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
        reach = set(opaque)
        for module in opaque:
            reach |= self.imported_directly(module)
        return frozenset(seen), frozenset(reach)

