"""How often a function runs (at import, once, once per object, up front, hot) and why, and
whether it keeps what it makes (memoized).
"""

from __future__ import annotations

from warp_ct.analyzer.facts import (
    CallFact,
    FunctionFact,
)
from warp_ct.analyzer.program.base import (
    HOT_NAMES,
    MAX_DEPTH,
    ONCE_NAMES,
    Freq,
    Frequency,
    FunctionRef,
    _collection_elements,
    is_test_path,
)

_ONCE_PREFIXES = ("test_", "pytest_", "setup_", "init_", "configure_", "main_")


_HOT_PREFIXES = ("step_", "forward_", "run_", "simulate_", "update_", "render_")


_RECURSION = Frequency(Freq.ONCE, "recursion")


def _passes_loop_variable(call: CallFact) -> bool:
    return any(_collection_elements(v) for v in (*call.args, *call.kwargs.values()))


class Frequencies:
    """Part of :class:`Program` (``self`` is the program)."""

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
        in_tests = is_test_path(self.project_path(ref.module))  # type: ignore[attr-defined]
        for caller, module, call in self.callers(ref):
            if not in_tests and is_test_path(self.project_path(module)):  # type: ignore[attr-defined]
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
