"""Which kernels an expression holds and which Warp modules they land in: factories' returns,
tables, ``self.k``, kernels handed to launching helpers.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from warp_ct.analyzer.facts import (
    UNKNOWN,
    FunctionFact,
    LaunchFact,
    OptionFact,
    Value,
)
from warp_ct.analyzer.program.base import (
    _UNRESOLVED_ONLY,
    MAX_DEPTH,
    UNIQUE,
    UNRESOLVED,
    FunctionRef,
    KernelRef,
    _positional_index,
    argument_passed,
)


def _argument_for(fact: FunctionFact, call: Value, param: str) -> Value | None:
    """The argument a ``call`` value passes for ``param`` of the function it calls."""
    for item in call.items:
        if item.kind == "kw" and item.data == param:
            return item.items[0]
    positional = [item for item in call.items if item.kind != "kw"]
    index = _positional_index(fact, param)
    return positional[index] if 0 <= index < len(positional) else None


class Kernels:
    """Part of :class:`Program` (``self`` is the program)."""

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
            head, _, field = value.data.partition(".")
            if field and "." not in field:  # ``kernels.step`` of ``kernels = Kernels(step=integrate)``
                return self._field_of_name(module, function, head, field, depth + 1)
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


    def _field_of_name(self, module: str, function: str | None, head: str, field: str, depth: int) -> list[Any]:
        """The kernels ``head.field`` holds, where ``head`` is a parameter, a local or a global
        holding an object built by a project class (a NamedTuple, a dataclass)."""
        facts = self.modules[module]
        fact = self.function(FunctionRef(module, function)) if function is not None else None
        holders: list[tuple[str, str | None, Value]] = []
        if fact is not None and head in fact.params:
            holders = self.passed_values(FunctionRef(module, function), head)  # type: ignore[arg-type,assignment]
            if holders is None:
                return [UNRESOLVED]
        elif fact is not None and head in fact.locals:
            holders = [(module, function, item) for item in fact.locals[head]]
        elif head in facts.globals:
            holders = [(module, None, item) for item in facts.globals[head]]
        out: list[Any] = []
        for holder_module, holder_function, holder in holders:
            out.extend(self._field_kernels(holder_module, holder_function, holder, field, depth + 1))
        return out or [UNRESOLVED]


    def _field_kernels(self, module: str, function: str | None, holder: Value, field: str, depth: int) -> list[Any]:
        """The kernels the ``field`` of an object built as ``holder`` holds: the constructor's
        keyword, its argument at the field's position, or the class's default."""
        if depth > MAX_DEPTH:
            return [UNRESOLVED]
        if holder.kind == "local":
            out: list[Any] = []
            for item in holder.items:
                out.extend(self._field_kernels(module, function, item, field, depth + 1))
            return out or [UNRESOLVED]
        if holder.kind == "name":
            facts = self.modules[module]
            if holder.data in facts.globals:
                out = []
                for item in facts.globals[holder.data]:
                    out.extend(self._field_kernels(module, None, item, field, depth + 1))
                return out or [UNRESOLVED]
            resolved = self.resolve_dotted(holder.data)
            if resolved is not None and resolved[0] in self.modules and resolved != (module, holder.data):
                return self._field_kernels(resolved[0], None, Value("name", resolved[1]), field, depth + 1)
            return [UNRESOLVED]
        cls = self._class_of_value(module, holder) if holder.kind == "call" else None
        if cls is None:
            return [UNRESOLVED]
        for item in holder.items:
            if item.kind == "kw" and item.data == field:
                return self.kernels_of_value(module, function, item.items[0], depth + 1)
        fields = self.modules[cls[0]].class_fields.get(cls[1], ())
        names = [name for name, _default in fields]
        if field not in names:
            return [UNRESOLVED]
        positional = [item for item in holder.items if item.kind != "kw"]
        index = names.index(field)
        if index < len(positional):
            return self.kernels_of_value(module, function, positional[index], depth + 1)
        default = fields[index][1]
        return self.kernels_of_value(cls[0], None, default, depth + 1) if default.kind != "unknown" else [UNRESOLVED]


    def kernel_decorator_uses(self) -> dict[tuple[str, int], list[tuple[FunctionRef, FunctionRef]]]:
        """(module, index in its ``kernel_calls``) -> (decorated function, the decorator) for
        each function decorated with a project function that makes kernels with
        ``wp.kernel(fn, ...)``, itself or in a function it encloses (``def unique_kernel(**kw):
        def deco(f): return wp.kernel(f, module="unique", **kw)``)."""
        return self.memo("program.kernel_decorator_uses", self._kernel_decorator_uses)


    def _kernel_decorator_uses(self) -> dict[tuple[str, int], list[tuple[FunctionRef, FunctionRef]]]:
        makers: dict[FunctionRef, list[tuple[str, int]]] = {}
        for module, facts in self.modules.items():
            for index, call in enumerate(facts.kernel_calls):
                ref: FunctionRef | None = FunctionRef(module, call[0])
                while ref is not None:
                    makers.setdefault(ref, []).append((module, index))
                    fact = self.function(ref)
                    ref = FunctionRef(module, fact.parent) if fact is not None and fact.parent else None
        uses: dict[tuple[str, int], list[tuple[FunctionRef, FunctionRef]]] = {}
        if not makers:
            return uses
        for module, facts in self.modules.items():
            for qualname, fact in facts.functions.items():
                for decorator in fact.decorators:
                    target = self.resolve_call(module, None, decorator) if decorator else None
                    for call in makers.get(target, ()) if target is not None else ():
                        uses.setdefault(call, []).append((FunctionRef(module, qualname), target))  # type: ignore[arg-type]
        return uses


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
            for passed_module, passed_function, passed in self.passed_values(ref, value.data) or ():
                found = self._elements(passed_module, passed_function, passed, depth + 1)
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
        rows = self._rows(module, function, base, depth + 1)
        if rows is None:
            return None
        out = []
        for row_module, row_function, row in rows:
            items = self._elements(row_module, row_function, row, depth + 1)
            if items is None or not -len(items) <= index.data < len(items):
                return None
            out.append(items[index.data])
        return out


    def _rows(self, module: str, function: str | None, value: Value, depth: int) -> list[tuple[str, str | None, Value]] | None:
        """The tuple expressions ``value`` can be, each one alternative: a row a loop or an
        index picks, what each call site passes for a parameter (``self._launch(spec)`` called
        with every row of a stage table), else ``value`` itself; None when unknown."""
        if depth > MAX_DEPTH:
            return self._queries.cut(None)
        found = self._queries.ask(("rows", module, function, id(value)), value,
                                  lambda: self._rows_of(module, function, value, depth), None)
        return list(found) if found is not None else None


    def _rows_of(self, module: str, function: str | None, value: Value, depth: int) -> tuple[tuple[str, str | None, Value], ...] | None:
        if value.kind in ("sub", "elem"):
            alternatives = self._picked(module, function, value, depth + 1)
        elif value.kind == "local":  # assigned in several places: each assignment is one
            alternatives = [(module, function, item) for item in value.items]
        elif value.kind == "param" and function is not None:
            ref = FunctionRef(module, function)
            fact = self.function(ref)
            if fact is None or value.data not in fact.params or self.default_decides(ref, value.data):
                return ((module, function, value),)
            alternatives = self.passed_values(ref, value.data)  # type: ignore[assignment]
            if alternatives is None:
                return None
        else:
            return ((module, function, value),)
        if not alternatives:
            return None
        rows: list[tuple[str, str | None, Value]] = []
        for row_module, row_function, row in alternatives:
            found = self._rows(row_module, row_function, row, depth + 1)
            if found is None:
                return None
            rows.extend(found)
        return tuple(rows)


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
