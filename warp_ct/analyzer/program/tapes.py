"""What a ``wp.Tape`` or an adjoint launch differentiates, module by module."""

from __future__ import annotations

from typing import Sequence

from warp_ct.analyzer.facts import (
    Value,
)
from warp_ct.analyzer.program.base import (
    _NO_TARGETS,
    _TAPE_HARMLESS_METHODS,
    _TAPE_HARMLESS_ROOTS,
    UNRESOLVED,
    FunctionRef,
    _module_key,
)


def _harmless_in_tape(callee: str) -> bool:
    if callee.startswith(_TAPE_HARMLESS_ROOTS) or callee in _TAPE_HARMLESS_ROOTS:
        return True
    last = callee.rsplit(".", 1)[-1]
    return last in _TAPE_HARMLESS_METHODS or last.startswith("assert") or (last[:1].isupper() and "." not in callee)


class Tapes:
    """Part of :class:`Program` (``self`` is the program)."""

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
