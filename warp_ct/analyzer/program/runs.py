"""Entry points and what they load: the modules a run imports, the functions it reaches,
kernels handed to other code.
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator

from warp_ct.analyzer.facts import FunctionFact

from warp_ct.analyzer.program.base import (
    FunctionRef,
    KernelRef,
    is_test_path,
)


class Runs:
    """Part of :class:`Program` (``self`` is the program)."""

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


    def imported_closure(self, module: str) -> set[str]:
        """``module`` and the project modules it imports, transitively."""
        cache = self._closures
        if module not in cache:
            cache[module] = _walk({module}, self._direct)
        return cache[module]


    def loaded_with(self, module: str) -> set[str]:
        """The project modules a process that loads ``module`` may load: those that import it,
        transitively (one of them may be its entry point), and what it and they import. One
        walk each way, nothing kept per module on the way (a closure per importer was 11 MiB
        on newton)."""
        importers = self.memo("program.importers", self._importers)
        return _walk(_walk({module}, lambda m: importers.get(m, ())), self._direct)


    def _importers(self) -> dict[str, list[str]]:
        """Project module -> the project modules that import it."""
        out: dict[str, list[str]] = {}
        for module in self.modules:
            for imported in self._direct(module):
                if imported != module:
                    out.setdefault(imported, []).append(module)
        return out


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
            if is_test_path(self.project_path(module)):  # type: ignore[attr-defined]
                continue
            script = module not in imported and (facts.module_calls or any(l.function is None for l in facts.launches))
            if module.rsplit(".", 1)[-1] == "__main__" or facts.has_main_guard or script:
                entries.append(module)
        return entries


    def reached_from(self, entry: str) -> set[FunctionRef]:
        """Functions an entry module's top level (and ``__main__`` block) can run."""
        cache = self._reached
        if entry not in cache:
            facts = self.modules[entry]
            starts = [t for call in facts.module_calls + facts.main_calls for t in self._call_targets(entry, None, call.callee)]
            cache[entry] = self.called_closure(starts, also=self._hot_methods_constructed)  # type: ignore[attr-defined]
        return cache[entry]

    def _hot_methods_constructed(self, ref: FunctionRef, fact: FunctionFact) -> list[FunctionRef]:
        """Methods of objects built here run when the program calls them (a step loop in
        code not linted, a framework): a constructed class's hot methods count."""
        if fact.name != "__init__" or not fact.class_name:
            return []
        prefix = fact.qualname.rsplit(".", 1)[0] + "."
        return [FunctionRef(ref.module, qualname) for qualname, method in self.modules[ref.module].functions.items()
                if qualname.startswith(prefix) and self._intrinsic(method, "") is not None]  # fmt: skip


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


def _walk(starts: set[str], step: Callable[[str], Iterable[str]]) -> set[str]:
    """``starts`` and every module ``step`` leads to from them, transitively."""
    seen = set(starts)
    stack = list(starts)
    while stack:
        for candidate in step(stack.pop()):
            if candidate not in seen:
                seen.add(candidate)
                stack.append(candidate)
    return seen
