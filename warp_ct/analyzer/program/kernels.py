"""Which kernels an expression holds and which Warp modules they land in: factories' returns,
tables, ``self.k``, kernels handed to launching helpers.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Iterable, NamedTuple, Sequence, TypeVar

from warp_ct.analyzer.facts import (
    COMPREHENSION,
    NAMESPACE_CLASSES,
    UNKNOWN,
    FileFacts,
    FunctionFact,
    KernelFact,
    LaunchFact,
    OptionFact,
    Value,
)
from warp_ct.analyzer.program.base import (
    _UNRESOLVED_ONLY,
    DYNAMIC,
    MAX_DEPTH,
    UNIQUE,
    UNRESOLVED,
    FunctionRef,
    KernelRef,
    _positional_index,
    argument_passed,
    converted,
)



class AttributeGiver(NamedTuple):
    """Something that gives objects an attribute of a name: ``kind`` is "written" (on an
    object other than ``self``, or a namespace's keyword), "self" (``self.x = ...`` in a
    method), "field" (a class-body assignment), "kernel" (a kernel defined in a class body:
    ``kernel``) or "method" (a function defined in a class body)."""

    kind: str
    module: str
    function: str | None  # where the value is written (None: a class body or a module)
    value: Value
    kernel: KernelRef | None = None


def _argument_for(fact: FunctionFact, call: Value, param: str) -> Value | None:
    """The argument a ``call`` value passes for ``param`` of the function it calls."""
    for item in call.items:
        if item.kind == "kw" and item.data == param:
            return item.items[0]
    positional = [item for item in call.items if item.kind != "kw"]
    index = _positional_index(fact, param)
    return positional[index] if 0 <= index < len(positional) else None


# Calls that build an empty container: a table filled later (``_OVERLOADS = dict()``).
_Part = TypeVar("_Part")  # one alternative ``_joined`` asks about

_EMPTY_CONTAINERS = frozenset({
    "dict", "list", "tuple", "set", "collections.OrderedDict", "collections.defaultdict", "OrderedDict", "defaultdict",
})  # fmt: skip

# warp.fem's decorator that makes a kernel per suffix (``warp/_src/fem/cache.py``), by the
# names Warp exports it under.
_DYNAMIC_KERNEL_DECORATORS = frozenset({"warp.fem.cache.dynamic_kernel", "warp._src.fem.cache.dynamic_kernel"})

# Calls that iterate their arguments' elements (``for i, k in enumerate(kernels)``).
_ITERATING = frozenset({"enumerate", "zip", "list", "tuple", "sorted", "reversed", "iter"})

# How many calls a kernel handed to a factory is followed back through (``_bound_kernels``).
_MAX_BINDINGS = 1
# ... and how many a literal a call passes is followed in through, to the table lookup it keys
# (``get(dtype, component="fill")`` -> ``_get(dtype, component=component)`` -> ``specs[(component, ...)]``).
_MAX_KEY_BINDINGS = 2


def _passes_literal(call: Value) -> bool:
    """Whether a call passes a literal (``component="fill"``): a table lookup its callee keys
    by that parameter picks fewer rows at this call."""
    return any((item.items[0] if item.kind == "kw" and item.items else item).kind == "const" for item in call.items)


def _mentions_param(value: Value, depth: int = 0) -> bool:
    if value.kind == "param":
        return True
    if depth > 6 or value.kind not in ("tuple", "local", "choice", "call", "kw"):
        return False
    if value.kind == "call" and value.data not in ("bool", "int", "str"):
        return False
    return any(_mentions_param(item, depth + 1) for item in value.items)


def _keys_param(value: Value, depth: int = 0) -> bool:
    """Whether what ``value`` holds is picked from a table by a key made of parameters
    (``specs[(component, batched)]``), or comes from a call handed parameters on."""
    kind = value.kind
    if depth > 8:
        return False
    if kind == "sub" and len(value.items) == 2:
        return _mentions_param(value.items[1]) or _keys_param(value.items[0], depth + 1)
    if kind in ("local", "choice", "tuple"):
        return any(_keys_param(item, depth + 1) for item in value.items)
    if kind == "call" and value.data == "warp.overload":
        kernel = _argument_named(value, "kernel", 0)
        return kernel is not None and _keys_param(kernel, depth + 1)
    if kind == "call" and value.data not in _ITERATING:
        return any((item.items[0] if item.kind == "kw" and item.items else item).kind == "param" for item in value.items)
    return False


def _may_equal(a: Any, b: Any) -> bool:
    """Whether two resolved keys can be equal (UNRESOLVED, whole or in part, can be anything)."""
    if a is UNRESOLVED or b is UNRESOLVED:
        return True
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_may_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, tuple) or isinstance(b, tuple):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - a value whose comparison fails: it may be equal
        return True


def _is_empty_container(value: Value) -> bool:
    if value.kind in ("dict", "tuple"):
        return not value.items
    return value.kind == "call" and value.data in _EMPTY_CONTAINERS and all(
        item.kind == "kw" or value.data.endswith("defaultdict") for item in value.items
    )


def _is_table(value: Value) -> bool:
    """A binding that makes or fills a table: a dict or tuple, an empty container, an entry
    a function stores into it."""
    return value.kind in ("dict", "tuple", "stored") or _is_empty_container(value)


def _reaches_param(value: Value, depth: int = 0) -> bool:
    """Whether a parameter is part of what ``value`` holds, as ``_kernels_bound`` reads it
    (through locals, tables, loop elements and ``wp.overload``, not through calls)."""
    kind = value.kind
    if kind == "param":
        return True
    if depth > 8:
        return False
    if kind == "call":
        if value.data == "warp.overload":
            kernel = _argument_named(value, "kernel", 0)
            return kernel is not None and _reaches_param(kernel, depth + 1)
        if value.data not in _ITERATING:
            return False
        return any(item.kind != "kw" and _reaches_param(item, depth + 1) for item in value.items)
    if kind == "dict":
        return any(_reaches_param(item, depth + 1) for item in value.items[len(value.items) // 2:])
    if kind in ("elem", "sub"):
        return bool(value.items) and _reaches_param(value.items[0], depth + 1)
    if kind in ("local", "choice", "tuple"):
        return any(_reaches_param(item, depth + 1) for item in value.items)
    return False


def handed_kernel_params(kernel: Value) -> tuple[str, ...] | None:
    """The parameters a launching helper's kernel comes from: ``def run(kernel): wp.launch(kernel,
    ...)``, or a local (a choice) every value of which is a parameter or a constant
    (``active = fill_kernel`` on one branch, ``active = selective_kernel`` on the other, with
    ``selective_kernel=None``): its callers say which kernels. None for any other kernel."""
    if kernel.kind == "param":
        return (kernel.data,)
    if kernel.kind not in ("local", "choice") or not all(item.kind in ("param", "const") for item in kernel.items):
        return None
    params = tuple(item.data for item in kernel.items if item.kind == "param")
    return params or None


def _reads_self_table(value: Value, attr: str) -> bool:
    """``self.<attr>[key]`` or ``self.<attr>.get(key)``: a read of the table itself."""
    if value.kind == "sub" and value.items:
        base = value.items[0]
        return base.kind == "attr" and base.data == attr and bool(base.items) and base.items[0].kind == "self"
    return value.kind == "call" and value.data == f"self.{attr}.get"


def _entry_parts(item: Value, attr: str) -> list[Value]:
    """What a binding of ``self.<attr>`` puts in the table, less what it read from the table
    itself (``kernel = self._k.get(p) or self._k[0]...; self._k[p] = kernel``: a get-or-build
    cache stores back what it found, which adds nothing the table does not hold)."""
    if item.kind != "dict":
        return [item]
    parts: list[Value] = []
    for entry in item.items[len(item.items) // 2:]:
        if entry.kind == "local":
            parts.extend(part for part in entry.items if not _reads_self_table(part, attr))
        elif not _reads_self_table(entry, attr):
            parts.append(entry)
    return parts


def _dynamic_kernel(kernel: KernelFact, call: Value) -> KernelFact:
    """The kernel ``@fem.cache.dynamic_kernel(suffix, kernel_options=None, allow_overloads=False)``
    makes of ``kernel``'s function. Warp 1.19 (``fem/cache.py``, ``get_kernel``) keys it by
    (``__module__``, ``__qualname__``, suffix, sorted options) in a process-wide cache; a new key
    gets ``wp.Kernel(func, key, module=wp.get_module(f"{__module__}.dyn.{key}"),
    options=kernel_options)``, the module's options the file module's as they are then, updated
    with ``kernel_options``. Its module is a ``DYNAMIC`` value holding the suffix and the options
    (``kernel_modules``); its backward option is ``kernel_options``' ``"enable_backward"``
    (None: the file module's; unknown where the options are no dict literal)."""
    options = _argument_named(call, "kernel_options", 1)
    backward: Value | None = None
    if options is not None and not (options.kind == "const" and options.data is None):
        backward = UNKNOWN
        half = len(options.items) // 2
        if options.kind == "dict" and all(key.kind == "const" for key in options.items[:half]):
            picked = [item for key, item in zip(options.items[:half], options.items[half:]) if key.data == "enable_backward"]
            backward = picked[-1] if picked else None
    suffix = _argument_named(call, "suffix", 0) or UNKNOWN
    return replace(kernel, module=Value(DYNAMIC, None, (suffix, options or Value("const", None))),
                   module_options=options, enable_backward=backward)


def _joined(parts: Iterable[_Part], answer: Callable[[_Part], Sequence[Any] | None]) -> list[Any] | None:
    """The answers for every part, joined in order; None when any part has none (what one
    alternative holds cannot be told, so neither can the whole)."""
    out: list[Any] = []
    for part in parts:
        found = answer(part)
        if found is None:
            return None
        out.extend(found)
    return out


def imports_top_of(facts: FileFacts, dotted: str) -> bool:
    """Whether the dotted name ``dotted`` (import-resolved) starts with a top-level package
    the module imports, which nothing at its top rebinds: ``isaaclab.utils.kernels.k`` of
    ``from isaaclab.utils import kernels``, not ``sim.kernel`` of an object ``sim`` (a name
    of a package only where it was imported as one)."""
    top, dot, _rest = dotted.partition(".")
    if not dot or top in facts.globals:
        return False
    return any(module == top or module.startswith(top + ".") for module, _line, _at_top in facts.imports)


def _top_level_kernel(facts: FileFacts, value: Value) -> KernelRef | None:
    """The kernel a module-level name's value defines at the top of ``facts``' module
    (``@wp.kernel def k``), None for any other value."""
    if value.kind != "kernel":
        return None
    for index, kernel in enumerate(facts.kernels):
        if kernel.name == value.data and kernel.function is None and kernel.decorator == "kernel":
            return KernelRef(facts.module, index)
    return None


def _argument_named(call: Value, name: str, position: int) -> Value | None:
    """The argument a call value passes as keyword ``name`` or at ``position``."""
    for item in call.items:
        if item.kind == "kw" and item.data == name:
            return item.items[0]
    positional = [item for item in call.items if item.kind != "kw"]
    return positional[position] if position < len(positional) else None


class Kernels:
    """Part of :class:`Program` (``self`` is the program)."""

    def _add_decorated_kernels(self) -> None:
        """A function decorated with a project's own kernel decorator is a kernel: a function
        that applies ``wp.kernel`` to what it decorates (``def kernel(fn=None, **kw): ...
        wp.kernel(**kw)(fn)``, itself or in a function it encloses), or a name bound to
        ``functools.partial(wp.kernel, ...)``. Its module is the decorator call's
        ``module=``, else the one the decorator passes ``wp.kernel``, else the decorated
        function's file's; its backward option the decorator call's ``enable_backward=``,
        else the decorator's (unknown when it passes ``**keywords`` on). Those kernels are
        added to their modules' kernels (a copy of the facts: the files' own stay as
        extracted), and the function's name holds the kernel (``kernels_of_value``)."""
        self._decorated: dict[tuple[str, str], KernelRef] = {}
        self._kernel_objects: dict[int, tuple[Any, ...]] = {}
        self._add_kernel_objects()
        if not any(facts.decorated for facts in self.modules.values()):
            return
        makers: dict[FunctionRef, tuple[str, int]] = {}
        for module, facts in self.modules.items():
            for index, call in enumerate(facts.kernel_calls):
                ref: FunctionRef | None = FunctionRef(module, call[0])
                while ref is not None:
                    makers.setdefault(ref, (module, index))
                    fact = self.function(ref)
                    ref = FunctionRef(module, fact.parent) if fact is not None and fact.parent else None
        for module, facts in list(self.modules.items()):
            added: list[KernelFact] = []
            for kernel, candidates in facts.decorated:
                made = self._decorated_kernel(module, kernel, candidates, makers)
                if made is None:
                    continue
                qualname = f"{kernel.function}.<locals>.{kernel.name}" if kernel.function else kernel.name
                if kernel.owner is not None:
                    qualname = f"{kernel.owner}.{kernel.name}"
                self._decorated[(module, qualname)] = KernelRef(module, len(facts.kernels) + len(added))
                added.append(made)
            if added:
                self.modules[module] = replace(facts, kernels=[*facts.kernels, *added])

    def _add_kernel_objects(self) -> None:
        """``wp.Kernel(func=f, ...)``, ``wp.kernel(f, ...)`` and ``wp.kernel(...)(f)`` called in
        code: one kernel per Python function ``f`` can be (a function
        of the project, through locals, globals and what the callers of a parameter pass),
        defined where the call runs, in the Warp module of ``f``'s file unless the call names
        one. ``kernels_of_value`` answers the call with them (UNRESOLVED too where ``f`` may
        be something the model cannot name)."""
        for module, facts in list(self.modules.items()):
            added: list[KernelFact] = []
            for kernel, call in facts.kernel_objects:
                func = _argument_named(call, "func" if call.data == "warp.Kernel" else "f", 0)
                functions = self._functions_of(module, kernel.function, func, 0) if func is not None else [None]
                refs: list[Any] = []
                for target in dict.fromkeys(functions):
                    fact = self.function(target) if target is not None else None
                    if fact is None or fact.is_kernel:
                        refs.append(UNRESOLVED)
                        continue
                    home = kernel.module
                    if home is None and target.module != module:  # type: ignore[union-attr]
                        home = Value("const", target.module)  # type: ignore[union-attr]
                    refs.append(KernelRef(module, len(facts.kernels) + len(added)))
                    added.append(replace(kernel, name=fact.name, module=home))
                self._kernel_objects[id(call)] = tuple(refs)
            if added:
                self.modules[module] = replace(facts, kernels=[*facts.kernels, *added])

    def _functions_of(self, module: str, function: str | None, value: Value, depth: int) -> list[FunctionRef | None]:
        """The project functions ``value`` can be (None among them where unknown). Memoized:
        a parameter fans out over every call site, and helpers hand functions on."""
        if depth > 6:
            return list(self._queries.cut((None,)))
        return list(self._queries.ask(("functions", module, function, id(value)), value,
                                      lambda: tuple(self._functions_of_value(module, function, value, depth)), (None,)))

    def _functions_of_value(self, module: str, function: str | None, value: Value, depth: int) -> list[FunctionRef | None]:
        kind = value.kind
        if kind == "function":
            return [FunctionRef(module, value.data)]
        if kind in ("local", "choice"):
            out: list[FunctionRef | None] = []
            for item in value.items:
                out.extend(self._functions_of(module, function, item, depth + 1))
            return out or [None]
        if kind == "param" and function is not None:
            passed = self.passed_values(FunctionRef(module, function), value.data)
            if not passed:
                return [None]
            out = []
            for passed_module, passed_function, argument in passed:
                out.extend(self._functions_of(passed_module, passed_function, argument, depth + 1))
            return out
        if kind == "name":
            facts = self.modules[module]
            if value.data in facts.globals:
                values = facts.globals[value.data]
                return [ref for item in values for ref in self._functions_of(module, None, item, depth + 1)] or [None]
            resolved = self.resolve_dotted(value.data)
            if resolved is not None and resolved[0] in self.modules and resolved != (module, value.data):
                return self._functions_of(resolved[0], None, Value("name", resolved[1]), depth + 1)
        return [None]

    def _decorated_kernel(self, module: str, kernel: KernelFact, candidates: Any,
                          makers: dict[FunctionRef, tuple[str, int]]) -> KernelFact | None:  # fmt: skip
        """``kernel`` as the first of its ``candidates`` that makes kernels makes it; None if none does."""
        parent = self.function(FunctionRef(module, kernel.function)) if kernel.function else None
        for dotted, call in candidates:
            if dotted in _DYNAMIC_KERNEL_DECORATORS:
                return _dynamic_kernel(kernel, call) if call is not None else None
            keywords = {item.data: item.items[0] for item in call.items if item.kind == "kw"} if call is not None else {}
            made = self._partial_kernel(module, dotted)
            if made is not None:
                module_value, backward = made
            else:
                target = self._decorator_function(module, parent, dotted)
                found = makers.get(target) if target is not None else None
                if found is None:
                    continue
                maker_module, index = found
                _function, _span, module_value, sets_backward, spread = self.modules[maker_module].kernel_calls[index]
                maker = self.function(target)  # type: ignore[arg-type]
                if module_value is not None and module_value.kind == "param" and maker is not None:
                    # ``def kernel(fn=None, *, module=None)``: what the decorator call passes, else the default
                    module_value = keywords.get(module_value.data, maker.defaults.get(module_value.data, UNKNOWN))
                elif module_value is not None and module_value.kind != "const":
                    module_value = UNKNOWN
                backward = UNKNOWN if sets_backward or spread else None
                if spread:
                    default = self._backward_default(target)  # type: ignore[arg-type]
                    backward = default if default is not None else backward
            if "module" in keywords:
                module_value = keywords["module"]
            if "enable_backward" in keywords:
                backward = keywords["enable_backward"]
            elif "module_options" in keywords:
                backward = UNKNOWN
            return replace(kernel, module=module_value, enable_backward=backward)
        return None

    def _decorator_function(self, module: str, parent: FunctionFact | None, dotted: str) -> FunctionRef | None:
        """The project function a decorator names, also through a global bound to it
        (``kernel = utils.kernel`` in a package ``__init__``)."""
        for _ in range(4):
            target = self.resolve_call(module, parent, dotted)
            if target is not None:
                return target
            where = (module, dotted) if dotted in self.modules[module].globals else self.resolve_dotted(dotted)
            facts = self.modules.get(where[0]) if where is not None else None
            values = facts.globals.get(where[1], ()) if facts is not None else ()  # type: ignore[index]
            if len(values) != 1 or values[0].kind != "name":
                return None
            module, parent, dotted = where[0], None, values[0].data  # type: ignore[index]
        return None

    def _partial_kernel(self, module: str, dotted: str) -> tuple[Value | None, Value | None] | None:
        """(module, enable_backward) of a decorator bound to ``functools.partial(wp.kernel,
        ...)`` in the project; None when ``dotted`` is no such name."""
        where: tuple[str, str] | None = (module, dotted)
        facts = self.modules.get(module)
        if facts is None or dotted not in facts.globals:
            where = self.resolve_dotted(dotted)
        if where is None or where[0] not in self.modules:
            return None
        values = self.modules[where[0]].globals.get(where[1], ())
        if len(values) != 1:
            return None
        value = values[0]
        if value.kind != "call" or value.data not in ("functools.partial", "partial") or not value.items:
            return None
        if value.items[0] != Value("name", "warp.kernel"):
            return None
        keywords = {item.data: item.items[0] for item in value.items if item.kind == "kw"}
        module_value = keywords.get("module")
        if module_value is not None and module_value.kind != "const":
            module_value = UNKNOWN
        backward = keywords.get("enable_backward", UNKNOWN if "module_options" in keywords else None)
        return module_value, backward

    def _backward_default(self, ref: FunctionRef) -> Value | None:
        """``kwargs.setdefault("enable_backward", False)`` in a decorator or a function
        enclosing it: the value (None: none)."""
        current: FunctionRef | None = ref
        while current is not None:
            fact = self.function(current)
            if fact is None:
                return None
            for call in fact.calls:
                if call.callee.endswith(".setdefault") and len(call.args) == 2 and call.args[0] == Value("const", "enable_backward"):
                    return call.args[1] if call.args[1].kind == "const" else UNKNOWN
            current = FunctionRef(current.module, fact.parent) if fact.parent else None
        return None

    def decorated_kernel(self, module: str, qualname: str) -> KernelRef | None:
        """The kernel a function decorated with a project's kernel decorator is, if it is one."""
        return self._decorated.get((module, qualname))

    def _add_helper_launches(self) -> None:
        """A launch of a kernel the function receives (``def run(kernel, n, inputs):
        wp.launch(kernel, ...)``) is, for every rule, a launch at each of its call sites:
        with the kernel, ``block_dim``, device and inputs that call passes, in the caller's
        flow. Those launches are added to the callers' modules (a copy of their facts: the
        files' own stay as extracted). Through helpers handing the kernel on, 3 levels."""
        added: dict[str, list[LaunchFact]] = {}
        for module, facts in self.modules.items():
            for launch in facts.launches:
                if launch.kind in ("launch", "launch_tiled") and handed_kernel_params(launch.kernel) and launch.function:
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
            if launch.kernel.kind in ("local", "choice"):  # each of its values as this call gives it
                parts = tuple(passed(item) or UNKNOWN for item in launch.kernel.items)
                kernel = UNKNOWN if UNKNOWN in parts else Value(launch.kernel.kind, launch.kernel.data, parts)
            block_dim = passed(launch.block_dim)
            if kernel is None or kernel is UNKNOWN or block_dim is UNKNOWN:
                continue  # not passed here, or a block_dim the helper computes: unknown at this site
            inputs = tuple(passed(item) or UNKNOWN for item in launch.inputs)
            outputs = tuple(passed(item) or UNKNOWN for item in launch.outputs)
            inputs_param = None
            if launch.inputs_param is not None:
                listed = passed(Value("param", launch.inputs_param))
                if listed is not None and listed.kind == "tuple":
                    inputs = listed.items
                elif listed is not None and listed.kind == "param":
                    inputs_param = listed.data
            device = passed(launch.device)
            at_site = replace(
                launch, kernel=kernel, block_dim=block_dim, inputs=inputs, outputs=outputs, inputs_param=inputs_param, dtypes=(),
                device=None if device is UNKNOWN else device, adjoint=passed(launch.adjoint),
                max_workers=passed(launch.max_workers), span=call.span, function=function, order=call.order,
                loop_depth=call.loop_depth + launch.loop_depth, guarded=call.guarded or launch.guarded,
                taped=call.taped or launch.taped, path=call.path, kernel_span=None,
                withs=(*call.withs, *launch.withs),  # the caller's contexts around the helper's own
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
        facts = self.defining_facts(ref.module)
        if kernel.module is None:
            return [facts.module]
        if kernel.module.kind == DYNAMIC:  # one module per suffix, named after the kernel's function
            qualname = f"{kernel.function}.<locals>.{kernel.name}" if kernel.function else kernel.name
            return [(DYNAMIC, ref.module, f"{kernel.owner}.{kernel.name}" if kernel.owner else qualname)]
        # A module read from outside the project answers no value question: only a literal
        # ``module=`` is known there.
        written = self.resolve(ref.module, kernel.function, kernel.module) if not self.is_outside(ref.module) else (
            [kernel.module.data] if kernel.module.kind == "const" and (kernel.module.data is None or isinstance(kernel.module.data, str))
            else [UNRESOLVED])  # fmt: skip
        out = []
        for value in written:
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
        # The parts of one expression (a local's assignments, a table's items, the arms of
        # a choice) are as deep as the expression: the depth counts the steps that leave it
        # (a name, a call's returns, an attribute), which are what can run on and on.
        if kind == "local":
            out = []
            for item in value.items:
                out.extend(self.kernels_of_value(module, function, item, depth))
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
            outside = self.outside_kernels(value.data) if resolved is None and imports_top_of(facts, value.data) else None
            if outside is not None:  # a kernel of a package the project imports
                return outside
            source = self._star_name_source(facts, value.data) if "." not in value.data else None
            if source is not None:  # ``from .kernels import *`` then ``wp.launch(hash_cells, ...)``
                return self.kernels_of_value(source, None, value, depth + 1)
            enclosed = self._closure_kernels(module, function, value.data, depth + 1) if "." not in value.data else None
            if enclosed is not None:  # a kernel of the function around this one
                return enclosed
            head, _, path = value.data.partition(".")
            if not path:
                return [UNRESOLVED]
            found = [UNRESOLVED]
            if "." not in path:  # ``kernels.step`` of ``kernels = Kernels(step=integrate)``
                written = self._private_attr_kernels(module, function, head, path, depth + 1)
                if written is not None:  # ``rc._megakernel``, cached on the object by a function
                    return written
                found = self._field_of_name(module, function, head, path, depth + 1)
            if UNRESOLVED in found and self._is_variable(module, function, head):
                # ``e.blk.k.previous``: the object is not followed to where it is built
                named = self._named_attribute_kernels(path.rsplit(".", 1)[-1], depth + 1)
                if named is not None:
                    return named
            return found
        if kind == "call":
            built = self._built_holder(module, function, value, depth)
            if built is not None:  # ``Kernels(scale, shift)`` of a namedtuple: what it holds
                return built
            if value.data in ("warp.Kernel", "warp.kernel"):  # ``wp.Kernel(func=f)``, ``wp.kernel(f)``: the kernels made of it
                return list(self._kernel_objects.get(id(value), _UNRESOLVED_ONLY))
            if value.data in ("staticmethod", "classmethod") and len(value.items) == 1:  # the function it wraps
                return self.kernels_of_value(module, function, value.items[0], depth + 1)
            if value.data == "warp.overload":  # an overload of a generic kernel is that kernel
                kernel = _argument_named(value, "kernel", 0)
                return self.kernels_of_value(module, function, kernel, depth + 1) if kernel is not None else [UNRESOLVED]
            if _is_empty_container(value):
                return []
            target = self.resolve_call(module, self.function(FunctionRef(module, function)) if function else None, value.data)
            if target is None:
                handed = self._param_call_kernels(module, function, value, depth + 1)
                if handed is not None:  # ``build(m, rc)`` of a ``build`` the callers pass
                    return handed
                looked_up = self._table_get(module, function, value, depth + 1)
                if looked_up is not None:  # ``_KERNELS.get(dtype)`` of a table
                    return looked_up
                return self._wrapped_table(module, function, value, depth + 1)
            fact = self.function(target)
            out = []
            for returned in fact.returns if fact else ():
                if returned.kind == "param":  # ``set_name(kernel, ...)`` hands its argument back
                    argument = _argument_for(fact, value, returned.data)
                    if argument is not None:
                        out.extend(self.kernels_of_value(module, function, argument, depth + 1))
                        continue
                found = self.kernels_of_value(target.module, target.qualname, returned, depth + 1)
                if UNRESOLVED in found and fact is not None and fact.params and _reaches_param(returned):
                    # ``register_overloads(kernel, ...)`` fills a table with what it was handed
                    found = self._bound_kernels(target.module, target.qualname, returned,
                                                ((module, function, value, fact),), depth + 1)  # fmt: skip
                elif UNRESOLVED not in found and fact is not None and _passes_literal(value) and _keys_param(returned):
                    # ``get_kernel(dtype, component="fill")`` picks the rows of ``specs[(component, ...)]``
                    # this call's literals can key: the kernels of those, of all the callee can return.
                    found = self._narrowed(found, self._bound_kernels(
                        target.module, target.qualname, returned, ((module, function, value, fact),), depth + 1))
                out.extend(found)
            if UNRESOLVED in out and fact is not None and fact.class_name is not None:
                # ``_SCATTER.select(ids)`` of an object built at a known constructor call: what
                # the method returns with ``self`` that object (its ``__init__``'s parameters
                # bound to that call's arguments).
                bound = self._receiver_kernels(module, function, value.data, target, depth + 1)
                if bound is not None and UNRESOLVED not in bound:
                    return bound
            return out or [UNRESOLVED]
        if kind == "method" and value.items:  # ``make(dtype).select(ids)``: on the object the call builds
            receivers = self._constructions(module, function, value.items[0], 0)
            found = self._kernels_on_receivers(receivers, value.data, None, depth + 1) if receivers else None
            return found or [UNRESOLVED]
        if kind == "stored":  # an entry a function stored in a global table: from any of its calls
            return self._bound_kernels(module, value.data, value.items[0], (), depth)
        if kind == "function":  # decorated with a project's own kernel decorator
            ref = self.decorated_kernel(module, value.data)
            return [ref] if ref is not None else [UNRESOLVED]
        if kind == "attr" and value.items and value.items[0].kind == "self" and function:
            class_name = self.class_of(FunctionRef(module, function))
            out = []
            if class_name is not None:
                for where, item in self.self_attr_values(module, class_name, value.data):
                    for part in _entry_parts(item, value.data):
                        out.extend(self._stored_kernels(where, part, depth + 1))
                getter = self.method(module, class_name, value.data)
                if getter is not None and self.is_property(getter):  # what the property returns
                    for returned in self.function(getter).returns:  # type: ignore[union-attr]
                        out.extend(self.kernels_of_value(getter.module, getter.qualname, returned, depth + 1))
                # A class attribute, read through the instance until a method assigns it.
                out.extend(self.class_attribute_kernels(module, class_name, value.data, depth + 1) or ())
            # A private attribute the package also sets from outside the class's methods
            # (``_Specialized._step = staticmethod(step)`` on a subclass made at run time):
            # every value the package writes to that name.
            written = self._private_writes_kernels(value.data, depth + 1)
            if written is not None:
                out.extend(written)
            if not out or UNRESOLVED in out:  # ``self.grid_op``, which another class sets on it
                named = self._named_attribute_kernels(value.data, depth + 1)
                if named is not None:
                    return named
            return out or [UNRESOLVED]
        if kind == "attr" and value.items and value.items[0].kind != "self":  # ``get_kernels(dtype).shift``
            found = self._field_kernels(module, function, value.items[0], value.data, depth + 1)
            if UNRESOLVED in found:  # ``self.k.measure`` of an object the model does not follow
                named = self._named_attribute_kernels(value.data, depth + 1)
                if named is not None:
                    return named
            return found
        if kind in ("sub", "elem") and value.items:
            picked = self._picked(module, function, value, depth + 1)
            if picked is not None:
                out = []
                for item_module, item_function, item in picked:
                    out.extend(self.kernels_of_value(item_module, item_function, item, depth + 1))
                return out or [UNRESOLVED]
            keyed = self._keyed_values(module, function, value, depth + 1) if kind == "sub" else None
            if keyed is not None:  # ``kernels["fft_tiled"]`` of ``kernels = make(n)`` returning a dict literal
                out = []
                for item_module, item_function, item in keyed:
                    out.extend(self.kernels_of_value(item_module, item_function, item, depth + 1))
                return out or [UNRESOLVED]
            return self._kernels_in_container(module, function, value.items[0], depth)
        if kind == "const":
            return []  # a number beside a kernel in a table row: not a kernel
        if kind == "choice":  # ``_kernel_2d if ndim == 2 else _kernel_1d``
            out = []
            for item in value.items:
                out.extend(self.kernels_of_value(module, function, item, depth))
            return out or [UNRESOLVED]
        if kind in ("tuple", "dict") and not value.items:
            return []  # an empty table (filled later: its other values hold what it gets)
        # A table's items each answer: an item that answers nothing holds no kernel (a
        # literal, an empty table), so a row of literals (``("f", "f64")``, a signature
        # beside the kernel) holds none either.
        if kind == "tuple":
            out = []
            for item in value.items:
                out.extend(self.kernels_of_value(module, function, item, depth))
            return out
        if kind == "dict":
            half = len(value.items) // 2
            out = []
            for item in value.items[half:]:
                out.extend(self.kernels_of_value(module, function, item, depth))
            return out
        return [UNRESOLVED]


    def outside_kernels(self, dotted: str, depth: int = 0) -> list[KernelRef] | None:
        """The kernel a dotted, import-resolved name outside the project stands for
        (``isaaclab.utils.warp.kernels.reset``): a kernel defined at the top of a module read
        from outside the project, followed through its imports (``from .kernels import
        reset`` in a package ``__init__``, ``from .kernels import *``). None for anything else
        (a class's attribute, a factory's return value, a name assigned there): the launch
        stays outside the project, as before."""
        if self._outside is None or depth > 6:
            return None
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if module in self.modules:
                return None  # the project's own: answered by the project's resolution
            facts = self._outside(module)
            if facts is None:
                continue
            if cut != len(parts) - 1:
                return None  # ``module.Class.kernel``: not followed
            return self._outside_name(facts, parts[-1], depth)
        return None


    def _outside_name(self, facts: FileFacts, name: str, depth: int) -> list[KernelRef] | None:
        """``name`` at the top of a module read from outside the project, as the kernels it
        holds: a kernel, or a table of them (``_overloads = {}; _overloads[t] =
        wp.overload(kernel, ...)``, launched as ``_overloads[dtype]``)."""
        values = facts.globals.get(name)
        if values is not None:
            found = self._outside_values(facts, values, depth + 1)
            if found is None:
                return None
            return list(dict.fromkeys(found)) or None
        target = facts.aliases.get(name)
        if target is not None:
            return self.outside_kernels(target, depth + 1) if target != f"{facts.module}.{name}" else None
        star = (facts.exports or {}).get("*")
        for source in star.target.split(",") if star is not None else ():
            found = self.outside_kernels(f"{source}.{name}", depth + 1)
            if found is not None:
                return found
        return None


    def _outside_value(self, facts: FileFacts, value: Value, depth: int) -> list[KernelRef] | None:
        """The kernels a module-level value of a module read from outside the project holds:
        a kernel defined there, a name of one (there or imported), ``wp.overload(kernel,
        ...)``, and tables (tuples, lists, dicts) of these beside literals. None for anything
        else (a call, an attribute): not followed outside the project."""
        if depth > MAX_DEPTH:
            return None
        kind = value.kind
        if kind == "kernel":
            ref = _top_level_kernel(facts, value)
            return [ref] if ref is not None else None
        if kind == "const":
            return []
        if kind == "name" and isinstance(value.data, str):
            name = value.data
            if name.startswith(facts.module + ".") and "." not in name[len(facts.module) + 1:]:
                name = name[len(facts.module) + 1:]
            if "." not in name:
                return self._outside_name(facts, name, depth + 1)
            return self.outside_kernels(name, depth + 1) if imports_top_of(facts, name) else None
        if kind == "call" and value.data == "warp.overload":  # an overload of a generic kernel is that kernel
            kernel = _argument_named(value, "kernel", 0)
            return self._outside_value(facts, kernel, depth + 1) if kernel is not None else None
        parts: tuple[Value, ...] | None = None
        if kind in ("tuple", "list"):
            parts = value.items
        elif kind == "dict":
            parts = value.items[len(value.items) // 2:]
        return self._outside_values(facts, parts, depth + 1) if parts is not None else None

    def _outside_values(self, facts: FileFacts, values: Sequence[Value], depth: int) -> list[KernelRef] | None:
        """The kernels all of ``values`` hold (``_outside_value``); None when one is not followed."""
        out: list[KernelRef] = []
        for value in values:
            held = self._outside_value(facts, value, depth)
            if held is None:
                return None
            out.extend(held)
        return out


    def _keyed_values(self, module: str, function: str | None, value: Value, depth: int) -> list[tuple[str, str | None, Value]] | None:
        """``table["name"]`` with a string key, where ``table`` can only be dict literals (a local,
        a parameter every caller passes one to, a global, what a project function returns:
        ``@cache def make(n): ...; return {"fft": fft, "block_dim": bd}``): the value each
        literal gives that key. None when any of them is something else, or lacks the key or
        has a key the model cannot read (``**rest``)."""
        if len(value.items) != 2 or value.items[1].kind != "const" or not isinstance(value.items[1].data, str):
            return None
        if depth > MAX_DEPTH:
            return self._queries.cut(None)
        found = self._queries.ask(("keyed", module, function, id(value)), value,
                                  lambda: self._keyed_of(module, function, value.items[0], value.items[1].data, depth, 0), None)
        return list(found) if found is not None else None

    def _keyed_of(self, module: str, function: str | None, table: Value, key: str, depth: int,
                  steps: int) -> tuple[tuple[str, str | None, Value], ...] | None:  # fmt: skip
        if steps > 6:
            return None
        kind = table.kind
        if kind == "dict":
            half = len(table.items) // 2
            if not table.items or len(table.items) % 2:
                return None
            picked = None
            for entry, item in zip(table.items[:half], table.items[half:]):
                if entry.kind != "const":
                    return None  # a computed key or ``**rest``: the literal may hold ``key`` there
                if entry.data == key:
                    picked = item
            return ((module, function, picked),) if picked is not None else None
        alternatives: list[tuple[str, str | None, Value]] | None
        if kind == "local":
            alternatives = [(module, function, item) for item in table.items]
        elif kind == "name":
            facts = self.modules[module]
            if "." in table.data or table.data not in facts.globals:
                return None
            alternatives = [(module, None, item) for item in facts.globals[table.data]]
        elif kind == "param" and function is not None:
            alternatives = self.passed_values(FunctionRef(module, function), table.data)
        elif kind == "call" and table.data:
            caller = self.function(FunctionRef(module, function)) if function is not None else None
            target = self.resolve_call(module, caller, table.data)
            fact = self.function(target) if target is not None else None
            if fact is None or fact.class_name is not None or fact.is_kernel:
                return None
            alternatives = [(target.module, target.qualname, item) for item in fact.returns]  # type: ignore[union-attr]
        else:
            return None
        if not alternatives:
            return None
        out = _joined(alternatives, lambda a: self._keyed_of(a[0], a[1], a[2], key, depth, steps + 1))
        return tuple(out) if out is not None else None

    def _table_rows(self, module: str, function: str | None, table: Value, steps: int) -> list[tuple[str, str | None, Value]] | None:
        """Every value a table can hold, where each binding of ``table`` (a local, a global, also
        imported, what each call passes for a parameter, what a project function returns) is a
        dict or tuple literal or an entry stored into it: ``_KERNELS = {torch.float32: _Set(...),
        ...}``, ``families = build_families(...)``. None when any binding is something else."""
        if steps > 4:
            return None
        kind = table.kind
        if kind == "dict":
            half = len(table.items) // 2
            if len(table.items) % 2 or any(entry.kind == "unknown" for entry in table.items[:half]):
                return None  # ``**rest``: entries the model cannot read
            return [(module, function, item) for item in table.items[half:]]
        if kind == "tuple":
            return [(module, function, item) for item in table.items]
        if kind == "local":
            bindings = [(module, function, item) for item in table.items]
        elif kind == "name":
            facts = self.modules[module]
            where, dotted = module, table.data
            if dotted not in facts.globals:
                resolved = self.resolve_dotted(dotted)
                if resolved is None or resolved[0] not in self.modules:
                    return None
                where, dotted = resolved
            bindings = [(where, None, item) for item in self.modules[where].globals.get(dotted, ())]
        elif kind == "param" and function is not None:
            bindings = self.passed_values(FunctionRef(module, function), table.data) or []
        elif kind == "call" and table.data:
            target = self.resolve_call(module, self.function(FunctionRef(module, function)) if function else None, table.data)
            fact = self.function(target) if target is not None else None
            if fact is None or fact.class_name is not None or fact.is_kernel:
                return None
            bindings = [(target.module, target.qualname, item) for item in fact.returns]  # type: ignore[union-attr]
        else:
            return None
        if not bindings:
            return None
        return _joined(bindings, lambda b: self._table_rows(b[0], b[1], b[2], steps + 1))

    def _receiver_kernels(self, module: str, function: str | None, callee: str, target: FunctionRef,
                          depth: int) -> list[Any] | None:  # fmt: skip
        """``head.method(...)`` where every binding of ``head`` (a local, a global, imported) is an
        object built by a constructor call the model sees (``_X = Dispatcher(kernel, ...)``, or a
        factory's ``return Dispatcher(...)``): the kernels ``method`` returns for those objects.
        None when ``head`` is anything else."""
        head, _, name = callee.rpartition(".")
        if not head or "." in head or head in ("self", "cls"):
            return None
        receivers = self._receivers(module, function, head)
        if not receivers:
            return None
        return self._kernels_on_receivers(receivers, name, target, depth)

    def _kernels_on_receivers(self, receivers: list[tuple[str, str | None, Value, tuple[str, str]]], name: str,
                              target: FunctionRef | None, depth: int) -> list[Any] | None:  # fmt: skip
        """The kernels the method ``name`` returns on each object ``receivers`` built. None
        when a receiver's class has no such method (or, ``target`` given, one other than
        the call resolved to)."""
        out: list[Any] = []
        for receiver in receivers:
            method = self.method(receiver[3][0], receiver[3][1], name)
            if method is None or target is not None and method != target:
                return None
            out.extend(self._method_kernels_for(method, receiver, depth, 0))
        return out

    def _receivers(self, module: str, function: str | None, head: str) -> list[tuple[str, str | None, Value, tuple[str, str]]] | None:
        """(module, function, constructor call, class) of each object ``head`` can name."""
        fact = self.function(FunctionRef(module, function)) if function is not None else None
        if fact is not None and (head in fact.params or head in fact.loop_tables):
            return None
        if fact is not None and head in fact.locals:
            bindings = [(module, function, item) for item in fact.locals[head]]
        elif head in self.modules[module].globals:
            bindings = [(module, None, item) for item in self.modules[module].globals[head]]
        else:
            resolved = self.resolve_dotted(head)
            if resolved is None or resolved[0] not in self.modules or resolved[1] not in self.modules[resolved[0]].globals:
                return None
            bindings = [(resolved[0], None, item) for item in self.modules[resolved[0]].globals[resolved[1]]]
        out: list[tuple[str, str | None, Value, tuple[str, str]]] = []
        for where, binder, item in bindings:
            built = self._constructions(where, binder, item, 0)
            if not built:
                return None
            out.extend(built)
        return out

    def _constructions(self, module: str, function: str | None, value: Value,
                       depth: int) -> list[tuple[str, str | None, Value, tuple[str, str]]] | None:  # fmt: skip
        """The constructor calls ``value`` is: ``Class(...)`` itself, or every ``return`` of the
        project function it calls (``@cache def make(): return Class(...)``). None otherwise."""
        if depth > 3 or value.kind != "call" or not value.data:
            return None
        facts = self.modules[module]
        where = (module, value.data) if value.data in facts.classes else self.resolve_dotted(value.data)
        if where is not None and where[0] in self.modules and where[1] in self.modules[where[0]].classes:
            return [(module, function, value, where)]
        caller = self.function(FunctionRef(module, function)) if function is not None else None
        target = self.resolve_call(module, caller, value.data)
        fact = self.function(target) if target is not None else None
        if fact is None or fact.class_name is not None or not fact.returns:
            return None
        out: list[tuple[str, str | None, Value, tuple[str, str]]] = []
        for returned in fact.returns:
            built = self._constructions(target.module, target.qualname, returned, depth + 1)  # type: ignore[union-attr]
            if not built:
                return None
            out.extend(built)
        return out

    def _method_kernels_for(self, method: FunctionRef, receiver: tuple[str, str | None, Value, tuple[str, str]],
                            depth: int, calls: int) -> list[Any]:  # fmt: skip
        """The kernels ``method`` returns on the object ``receiver`` built: ``self.other(...)``
        (another method, a few deep), ``self.attr`` / ``self.attr[key]`` (what the methods store
        there, ``__init__``'s parameters bound to the constructor call's arguments), anything
        else as written."""
        if depth > MAX_DEPTH or calls > 4:
            return list(self._queries.cut(_UNRESOLVED_ONLY))
        key = ("receiver", method, id(receiver[2]))
        return list(self._queries.ask(key, receiver[2],
                                      lambda: tuple(dict.fromkeys(self._method_kernels_on(method, receiver, depth, calls))),
                                      _UNRESOLVED_ONLY))  # fmt: skip

    def _method_kernels_on(self, method: FunctionRef, receiver: tuple[str, str | None, Value, tuple[str, str]],
                           depth: int, calls: int) -> list[Any]:  # fmt: skip
        fact = self.function(method)
        if fact is None or not fact.returns:
            return [UNRESOLVED]
        cls = receiver[3]
        init = self.method(cls[0], cls[1], "__init__")
        init_fact = self.function(init) if init is not None else None
        out: list[Any] = []
        for returned in fact.returns:
            holder = returned
            while holder.kind == "sub" and holder.items:
                holder = holder.items[0]
            parts = returned.data.split(".") if returned.kind == "call" and returned.data else []
            if len(parts) == 2 and parts[0] == "self":
                other = self.method(cls[0], cls[1], parts[1])
                out.extend(self._method_kernels_for(other, receiver, depth + 1, calls + 1) if other is not None
                           else [UNRESOLVED])  # fmt: skip
            elif holder.kind == "attr" and holder.items and holder.items[0].kind == "self":
                site = ((receiver[0], receiver[1], receiver[2], init_fact),)
                stored = self.self_attr_values(cls[0], cls[1], holder.data)
                for where, item in stored:
                    out.extend(self._bound_kernels(where.module, where.qualname, item, site, depth + 1)
                               if where == init and init_fact is not None else self._stored_kernels(where, item, depth + 1))
                if not stored:
                    out.append(UNRESOLVED)
            else:
                out.extend(self.kernels_of_value(method.module, method.qualname, returned, depth + 1))
        return out

    def _table_get(self, module: str, function: str | None, value: Value, depth: int) -> list[Any] | None:
        """``TABLE.get(key)`` / ``TABLE.get(key, default)`` where ``TABLE`` names a table (a
        local, ``self.attr`` or a global every binding of which is a dict or tuple, an empty
        container, an entry stored into it, or an entry looked up in such a table): the
        kernels the table holds, and the default's. None when the call is no such lookup
        (``registry.get(name)`` of an object)."""
        if not value.data.endswith(".get") or not 1 <= len(value.items) <= 2 or any(item.kind == "kw" for item in value.items):
            return None
        bindings = self._table_bindings(module, function, value.data[: -len(".get")])
        if not bindings or not all(self._holds_table(where, binder, item, 0) for where, binder, item in bindings):
            return None
        out: list[Any] = []
        for where, binder, item in bindings:
            out.extend(self._table_kernels(where, binder, item, value, depth))
        if len(value.items) == 2:
            out.extend(self.kernels_of_value(module, function, value.items[1], depth))
        return out

    def _table_kernels(self, module: str, function: str | None, binding: Value, lookup: Value, depth: int) -> list[Any]:
        """The kernels a table binding holds, where an entry stored back into the table may be
        what ``lookup`` itself found (``k = cache.get(key); if k is None: k = build(); cache[key]
        = k``): that part adds nothing the table does not already hold."""
        if binding.kind == "stored" and binding.items and binding.items[0].kind == "dict":
            entry = binding.items[0]
            half = len(entry.items) // 2
            if any(item.kind == "local" and any(part is lookup for part in item.items) for item in entry.items[half:]):
                out: list[Any] = []
                for item in entry.items[half:]:
                    parts = [part for part in item.items if part is not lookup] if item.kind == "local" else [item]
                    for part in parts:
                        out.extend(self._bound_kernels(module, binding.data, part, (), depth) if part.kind == "param"
                                   else self.kernels_of_value(module, binding.data, part, depth))  # fmt: skip
                return out
        if binding.kind == "dict":
            half = len(binding.items) // 2
            if any(item.kind == "local" and any(part is lookup for part in item.items) for item in binding.items[half:]):
                out = []
                for item in binding.items[half:]:
                    parts = [part for part in item.items if part is not lookup] if item.kind == "local" else [item]
                    for part in parts:
                        out.extend(self.kernels_of_value(module, function, part, depth))
                return out
        return self.kernels_of_value(module, function, binding, depth)

    def _table_bindings(self, module: str, function: str | None, name: str) -> list[tuple[str, str | None, Value]] | None:
        """What the name a ``.get`` is called on is bound to: a local's assignments, what the
        class's methods store in ``self.attr``, a global's bindings (also imported)."""
        fact = self.function(FunctionRef(module, function)) if function else None
        if fact is not None and name in fact.locals:
            return [(module, function, item) for item in fact.locals[name]]
        head, _, attr = name.partition(".")
        if fact is not None and head == "self" and attr and "." not in attr:
            class_name = self.class_of(FunctionRef(module, function))  # type: ignore[arg-type]
            if class_name is None:
                return None
            return [(where.module, where.qualname, item) for where, item in self.self_attr_values(module, class_name, attr)]
        if fact is not None and (name in fact.params or head in fact.params):
            return None
        where, dotted = module, name
        facts = self.modules[module]
        if dotted not in facts.globals:
            resolved = self.resolve_dotted(dotted)
            if resolved is None or resolved[0] not in self.modules:
                return None
            where, dotted = resolved
            facts = self.modules[where]
        return [(where, None, item) for item in facts.globals.get(dotted, ())]

    def _holds_table(self, module: str, function: str | None, value: Value, depth: int) -> bool:
        """A binding that makes or fills a table, or looks one up in a table (``rows =
        TABLE.get(dtype)``, ``TABLE[dtype]``)."""
        if _is_table(value):
            return True
        if depth > 4:
            return False
        if value.kind == "call" and value.data.endswith(".get") and 1 <= len(value.items) <= 2:
            bindings = self._table_bindings(module, function, value.data[: -len(".get")])
            return bool(bindings) and all(self._holds_table(where, binder, item, depth + 1) for where, binder, item in bindings)
        if value.kind == "sub" and value.items:
            return self._holds_table(module, function, value.items[0], depth + 1)
        if value.kind == "name":
            bindings = self._table_bindings(module, None, value.data)
            return bool(bindings) and all(self._holds_table(where, binder, item, depth + 1) for where, binder, item in bindings)
        return False

    def _param_call_kernels(self, module: str, function: str | None, value: Value, depth: int) -> list[Any] | None:
        """A call of a function the caller receives (``def cached(m, rc, build): ...
        build(m, rc)``) or holds in a local (``kernel_fn = get_masked if mask else get_plain``):
        what the functions every call site passes for it (the local is bound to) return. None
        when the callee is neither."""
        callee = value.data
        fact = self.function(FunctionRef(module, function)) if function is not None else None
        if fact is None or "." in callee or callee not in fact.params and callee not in fact.locals:
            return None
        if callee in fact.locals:  # ``kernel_fn = get_masked if mask else get_plain; kernel_fn(...)``
            passed: Any = [(module, function, item) for item in fact.locals[callee]]
        else:
            passed = self.passed_values(FunctionRef(module, function), callee)
        if not passed:
            return [UNRESOLVED]
        out: list[Any] = []
        for passed_module, passed_function, argument in passed:
            for target in dict.fromkeys(self._functions_of(passed_module, passed_function, argument, 0)):
                called = self.function(target) if target is not None else None
                if called is None or called.is_kernel or not called.returns:
                    return [UNRESOLVED]
                for returned in called.returns:
                    if returned.kind == "param":  # hands back what this call passes: not followed
                        return [UNRESOLVED]
                    out.extend(self.kernels_of_value(target.module, target.qualname, returned, depth))  # type: ignore[union-attr]
        return out or [UNRESOLVED]

    def _private_attr_kernels(self, module: str, function: str | None, head: str, attr: str, depth: int) -> list[Any] | None:
        """``obj._attr`` read through a parameter or a local, where functions store a private
        attribute on objects they are handed (``rc._megakernel = build(m, rc)``: a kernel
        cached on a context object): every value the project gives an attribute of that name
        (those writes, ``self._attr = ...`` in methods, class fields and ``_attr=`` keywords).
        A private name is written by its package only, so these are all it can hold. None when
        no function writes it on another object (then the object's own fields say)."""
        if not attr.startswith("_") or attr.startswith("__"):
            return None
        fact = self.function(FunctionRef(module, function)) if function is not None else None
        if fact is None or head not in fact.params and head not in fact.locals or head in ("self", "cls"):
            return None
        return self._private_writes_kernels(attr, depth)

    def _private_writes_kernels(self, attr: str, depth: int) -> list[Any] | None:
        """The kernels of every value the package gives the private attribute ``attr``, when
        some function writes it on an object other than ``self``; None otherwise."""
        if not attr.startswith("_") or attr.startswith("__"):
            return None
        givers = self._attribute_givers().get(attr)
        if not givers or not any(giver.kind == "written" for giver in givers):
            return None
        out: list[Any] = []
        for giver in givers:
            out.extend(self._given_kernels(giver, depth))
        return out

    def _is_variable(self, module: str, function: str | None, name: str) -> bool:
        """Whether the head ``name`` of a dotted name is a variable (a parameter, a local, a
        loop's, a module global), not an imported module, a class or a function. (Names are
        import-resolved: an imported name's head is its package's.)"""
        facts = self.modules[module]
        if name in facts.classes or name in facts.functions:
            return False
        roots = self.memo(f"program.import_roots:{module}",
                          lambda: frozenset(target.split(".", 1)[0] for target in facts.aliases.values()))
        packages = self.memo("program.package_roots", lambda: frozenset(other.split(".", 1)[0] for other in self.modules))
        return name not in roots and name not in packages

    def _named_attribute_kernels(self, attr: str, depth: int) -> list[Any] | None:
        """``x.attr`` of an object the model does not follow to where it is built (a model
        handed through several objects: ``mpm_model.p2g``, ``e.blk.k.previous``): the kernels
        of every value the program gives an attribute of that name (writes on any object,
        ``self.attr = ...`` in any class, class attributes and kernels defined in class
        bodies, namespace keywords). A launched attribute can only be a kernel, so values
        that hold none (``None``, a method) are not candidates. None (unknown) when one of
        them is not followed, when objects may get the attribute where the model does not
        see it (a NamedTuple's or a dataclass's field, set by its constructor's arguments; a
        property), when no kernel is given, or when the kernels live in more than one Python
        module: then what a rule says of the launch's module would depend on which it is."""
        if depth > MAX_DEPTH:
            self._queries.cut(None)
            return None
        # Asked once per name (``a.k = b.k`` is a cycle through it: cut, unknown).
        found = self._queries.ask(("named attribute", attr), None, lambda: self._named_attribute_of(attr, depth), None)
        return list(found) if found is not None else None

    def _named_attribute_of(self, attr: str, depth: int) -> tuple[Any, ...] | None:
        givers = self._attribute_givers().get(attr)
        if not givers or attr.startswith("__"):
            return None
        out: list[Any] = []
        for giver in givers:
            if giver.kind == "field" and giver.value.kind in ("unset", "unknown"):
                return None  # ``kernel: wp.Kernel`` of a NamedTuple/dataclass: its constructor sets it
            if giver.kind == "method":
                if self.is_property(FunctionRef(giver.module, giver.function)):  # type: ignore[arg-type]
                    return None
                continue  # a method: not a kernel
            found = self._given_kernels(giver, depth)
            if UNRESOLVED in found:
                return None
            out.extend(found)
        if not out or len({ref.module for ref in out if isinstance(ref, KernelRef)}) != 1 or self._tuple_field(attr):
            return None
        return tuple(dict.fromkeys(out))

    def _given_kernels(self, giver: AttributeGiver, depth: int) -> list[Any]:
        if giver.kernel is not None:
            return [giver.kernel]
        value = giver.value
        if value.kind == "unset":
            return []
        if value.kind == "unknown":
            return [UNRESOLVED]
        if giver.kind == "self" and giver.function is not None:  # ``def __init__(self, kernel): self.kernel = kernel``
            return self._stored_kernels(FunctionRef(giver.module, giver.function), value, depth)
        return self.kernels_of_value(giver.module, giver.function, value, depth)

    def _tuple_field(self, attr: str) -> bool:
        """Whether ``attr`` is a field of a class made by ``namedtuple(...)`` (set by position)."""
        return attr in self.memo("program.namedtuple_fields", self._namedtuple_field_names)

    def _namedtuple_field_names(self) -> frozenset[str]:
        names: set[str] = set()
        for module, facts in self.modules.items():
            for dotted, values in facts.globals.items():
                if len(values) == 1 and values[0].kind == "call" and values[0].data.endswith("namedtuple"):
                    names.update(self._namedtuple_fields(module, dotted) or ())
        return frozenset(names)

    def _attribute_givers(self) -> dict[str, list[AttributeGiver]]:
        """Attribute name -> what gives objects an attribute of that name, anywhere in the program."""
        return self.memo("program.attribute_givers", self._index_attribute_givers)

    def _index_attribute_givers(self) -> dict[str, list[AttributeGiver]]:
        out: dict[str, list[AttributeGiver]] = {}
        for module, facts in self.modules.items():
            for attr, writes in facts.attr_writes.items():
                out.setdefault(attr, []).extend(AttributeGiver("written", module, writer, value) for writer, value in writes)
            for qualname, fact in facts.functions.items():
                for attr, values in fact.self_attrs.items():
                    out.setdefault(attr, []).extend(AttributeGiver("self", module, qualname, value) for value in values)
                if fact.class_name is not None and not fact.is_kernel:
                    out.setdefault(qualname.rsplit(".", 1)[-1], []).append(AttributeGiver("method", module, qualname, UNKNOWN))
            for fields in facts.class_fields.values():
                for attr, value in fields:
                    out.setdefault(attr, []).append(AttributeGiver("field", module, None, value))
            for index, kernel in enumerate(facts.kernels):
                if kernel.owner is not None:
                    out.setdefault(kernel.name, []).append(AttributeGiver("kernel", module, None, UNKNOWN, KernelRef(module, index)))
        return out

    def _closure_kernels(self, module: str, function: str | None, name: str, depth: int) -> list[Any] | None:
        """A free name of a nested function bound in a function around it (``def run(): @wp.kernel
        def count(...): ...; def launch(): wp.launch(count, ...)``): the kernel defined there,
        or what the outer function's local, loop variable or parameter holds. None when no
        enclosing function binds it."""
        fact = self.function(FunctionRef(module, function)) if function else None
        if fact is None or fact.parent is None or name in fact.params or name in fact.locals:
            return None
        kernels = self.modules[module].kernels
        parent: str | None = fact.parent
        while parent is not None:
            outer = self.function(FunctionRef(module, parent))
            if outer is None:
                return None
            for index, kernel in enumerate(kernels):
                if kernel.name == name and kernel.function == parent and kernel.owner is None:
                    return [KernelRef(module, index)]
            if name in outer.params:
                return self._bound_kernels(module, parent, Value("param", name), (), depth)
            if name in outer.locals:
                out: list[Any] = []
                for item in outer.locals[name]:
                    out.extend(self.kernels_of_value(module, parent, item, depth))
                return out or [UNRESOLVED]
            if name in outer.loop_tables:
                return self.kernels_of_value(module, parent, outer.loop_tables[name], depth)
            decorated = self.decorated_kernel(module, f"{parent}.<locals>.{name}")
            if decorated is not None:
                return [decorated]
            parent = outer.parent
        return None

    def _star_name_source(self, facts: Any, name: str) -> str | None:
        """The project module a name the file neither binds nor imports by name comes from
        through its ``*`` imports: the last of them that binds it at its top (Python's order:
        a later ``*`` import rebinds the name). None when a later ``*`` import is of a module
        outside the project (it may bind the name too) or none binds it."""
        if name in facts.globals or name in facts.aliases:
            return None
        star = (facts.exports or {}).get("*")
        if star is None:
            return None
        for source in reversed(star.target.split(",")):
            found = self.modules.get(source)
            if found is None:
                return None
            if source == facts.module:
                continue
            if name in found.globals or name in found.aliases:
                return source
        return None

    def _wrapped_table(self, module: str, function: str | None, value: Value, depth: int) -> list[Any]:
        """``Kernels(table)`` where ``Kernels`` is a project class deriving from ``dict`` with
        no constructor of its own: the table's kernels."""
        where = self.resolve_dotted(value.data) if "." in value.data else (module, value.data)
        facts = self.modules.get(where[0]) if where is not None else None
        if facts is None or where[1] not in facts.classes:  # type: ignore[index]
            resolved = self.resolve_dotted(value.data)
            facts = self.modules.get(resolved[0]) if resolved is not None else None
            where = resolved
            if facts is None or where[1] not in facts.classes:  # type: ignore[index]
                return [UNRESOLVED]
        bases = facts.classes[where[1]]  # type: ignore[index]
        positional = [item for item in value.items if item.kind != "kw"]
        if not any(base in ("dict", "collections.OrderedDict", "builtins.dict") for base in bases) or len(positional) != 1:
            return [UNRESOLVED]
        if f"{where[1]}.__init__" in facts.functions:  # type: ignore[index]
            return [UNRESOLVED]
        return self.kernels_of_value(module, function, positional[0], depth + 1)

    def _bound_kernels(self, module: str, function: str, value: Value, sites: tuple, depth: int) -> list[Any]:
        """The kernels ``value``, written in ``function``, holds where the call ``sites[0]``
        runs it (no sites: wherever it runs): its parameters are what that call passes (``def make(kernel, dtypes): return
        {t: wp.overload(kernel, [...]) for t in dtypes}``). ``sites``: (module, function, call
        value, callee fact) from the innermost call out, a few deep."""
        if depth > MAX_DEPTH:
            return list(self._queries.cut(_UNRESOLVED_ONLY))
        key = ("bound kernels", module, function, id(value), tuple(id(site[2]) for site in sites))
        return list(self._queries.ask(key, (value, sites),
                                      lambda: tuple(dict.fromkeys(self._kernels_bound(module, function, value, sites, depth))),
                                      _UNRESOLVED_ONLY))  # fmt: skip

    def _kernels_bound(self, module: str, function: str, value: Value, sites: tuple, depth: int) -> list[Any]:
        kind = value.kind
        if kind == "param" and not sites:  # what every call of ``function`` passes
            passed = self.passed_values(FunctionRef(module, function), value.data)
            out = []
            for passed_module, passed_function, argument in passed or ():
                if argument.kind == "param" and passed_function is not None:  # handed on from its own caller
                    out.extend(self._bound_kernels(passed_module, passed_function, argument, (), depth + 1))
                else:
                    out.extend(self.kernels_of_value(passed_module, passed_function, argument, depth + 1))
            return out or [UNRESOLVED]
        if kind == "param":
            site_module, site_function, call, fact = sites[0]
            argument = _argument_for(fact, call, value.data)
            if argument is None:
                default = fact.defaults.get(value.data)
                return self.kernels_of_value(module, None, default, depth + 1) if default is not None else [UNRESOLVED]
            if len(sites) > 1:
                return self._bound_kernels(site_module, site_function, argument, sites[1:], depth + 1)
            if argument.kind == "param" and site_function is not None:  # handed on: what its callers pass
                return self._bound_kernels(site_module, site_function, argument, (), depth + 1)
            return self.kernels_of_value(site_module, site_function, argument, depth + 1)
        if kind == "sub" and len(value.items) == 2:
            rows = self._keyed_rows(module, function, value.items[0], value.items[1], sites)
            if rows is not None:  # ``specs[(component, batched)]`` with the key this call passes
                out = []
                for row in rows:
                    out.extend(self._bound_kernels(module, function, row, sites, depth))
                return out or [UNRESOLVED]
        if kind in ("local", "choice", "tuple", "dict", "elem", "sub"):
            if not value.items:
                return []
            if kind == "dict":
                items = value.items[len(value.items) // 2:]
            elif kind in ("elem", "sub"):
                items = value.items[:1]  # every element of the container, whatever the index
            else:
                items = value.items
            out = []
            for item in items:  # a part of the same expression: no deeper in the program
                out.extend(self._bound_kernels(module, function, item, sites, depth))
            return out if kind in ("tuple", "dict") else out or [UNRESOLVED]  # a row of literals holds no kernel
        if kind == "call" and value.data == "warp.overload":
            kernel = _argument_named(value, "kernel", 0)
            return self._bound_kernels(module, function, kernel, sites, depth) if kernel is not None else [UNRESOLVED]
        if kind == "call" and value.data in _ITERATING and value.items:
            out = []  # ``enumerate(kernels)``, ``zip(kernels, dims)``: the elements of what they iterate
            for item in value.items:
                if item.kind != "kw":
                    out.extend(self._bound_kernels(module, function, item, sites, depth))
            return out or [UNRESOLVED]
        found = self.kernels_of_value(module, function, value, depth + 1)
        narrowing = kind == "call" and UNRESOLVED not in found and len(sites) < _MAX_KEY_BINDINGS
        if kind == "call" and (UNRESOLVED in found and len(sites) < _MAX_BINDINGS or narrowing):
            target = self.resolve_call(module, self.function(FunctionRef(module, function)), value.data)
            fact = self.function(target) if target is not None else None
            if fact is not None and fact.returns and fact.params:
                if narrowing and not any(_keys_param(returned) for returned in fact.returns):
                    return found
                out = []
                for returned in fact.returns:
                    out.extend(self._bound_kernels(target.module, target.qualname, returned,  # type: ignore[union-attr]
                                                   ((module, function, value, fact), *sites), depth + 1))  # fmt: skip
                return self._narrowed(found, out) if narrowing else out
        return found

    @staticmethod
    def _narrowed(found: list[Any], bound: list[Any]) -> list[Any]:
        """``found`` (all a call's callee can return) kept to ``bound`` (what this call's
        arguments pick), when that is known and picks some of them."""
        if not bound or UNRESOLVED in bound:
            return found
        picked = set(bound)
        narrowed = [ref for ref in found if ref in picked]
        return narrowed or found

    def _keyed_rows(self, module: str, function: str, base: Value, key: Value, sites: tuple) -> list[Value] | None:
        """The values of the dict literal ``base`` names whose keys can equal ``key`` as the
        call ``sites[0]`` binds its parameters (``specs[(component, batched)]`` called with
        ``component="fill"``). None when ``base`` is no dict literal, the key is unknown or no
        row matches (then every row is possible)."""
        if not sites:
            return None
        table, where = base, function
        while table.kind == "local" and len(table.items) == 1:
            table = table.items[0]
        if table.kind == "name":
            values = self.modules[module].globals.get(table.data, ())
            if len(values) != 1:
                return None
            table, where = values[0], None
        if table.kind != "dict" or not table.items:
            return None
        keys = self._bound_constants(module, function, key, sites)
        if not keys or all(k is UNRESOLVED for k in keys):
            return None
        half = len(table.items) // 2
        rows = [
            row for entry, row in zip(table.items[:half], table.items[half:])
            if any(_may_equal(a, b) for a in keys for b in self.resolve(module, where, entry))
        ]  # fmt: skip
        return rows or None

    def _bound_constants(self, module: str, function: str, key: Value, sites: tuple) -> list[Any]:
        """The values ``key``, written in ``function``, takes where the call ``sites[0]`` runs it:
        its parameters are what that call passes (through the calls further out for a
        parameter handed on), or their defaults."""
        kind = key.kind
        if kind == "const":
            return [key.data]
        if kind == "param" and sites:
            site_module, site_function, call, fact = sites[0]
            argument = _argument_for(fact, call, key.data)
            if argument is None:
                default = fact.defaults.get(key.data)
                return self.resolve(module, None, default) if default is not None else [UNRESOLVED]
            if argument.kind == "param" and len(sites) > 1 and site_function is not None:
                return self._bound_constants(site_module, site_function, argument, sites[1:])
            return self.resolve(site_module, site_function, argument)
        if kind == "tuple":
            parts = [self._bound_constants(module, function, item, sites) for item in key.items]
            return [tuple(part[0] if len(part) == 1 else UNRESOLVED for part in parts)]
        if kind == "local" and len(key.items) == 1:
            return self._bound_constants(module, function, key.items[0], sites)
        if kind == "call" and key.data in ("bool", "int", "str") and len(key.items) == 1:
            convert = {"bool": bool, "int": int, "str": str}[key.data]
            return converted(self._bound_constants(module, function, key.items[0], sites), convert)
        return self.resolve(module, function, key)

    def _stored_kernels(self, where: FunctionRef, item: Value, depth: int) -> list[Any]:
        """The kernels a method stores on ``self`` as ``item``: a parameter of it
        (``def __init__(self, kernel): self.kernel = kernel``) holds what its callers pass."""
        if item.kind != "param":
            return self.kernels_of_value(where.module, where.qualname, item, depth)
        if depth > MAX_DEPTH:
            return list(self._queries.cut(_UNRESOLVED_ONLY))
        return list(self._queries.ask(("stored", where, item.data), None,
                                      lambda: tuple(self._passed_kernels(where, item, depth)), _UNRESOLVED_ONLY))  # fmt: skip


    def _passed_kernels(self, where: FunctionRef, item: Value, depth: int) -> list[Any]:
        passed = self.passed_values(where, item.data)
        if not passed:
            return [UNRESOLVED]
        out: list[Any] = []
        for passed_module, passed_function, argument in passed:
            if argument.kind == "param":
                out.extend(self._stored_kernels(FunctionRef(passed_module, passed_function), argument, depth + 1)
                           if passed_function is not None else [UNRESOLVED])  # fmt: skip
            else:
                out.extend(self.kernels_of_value(passed_module, passed_function, argument, depth + 1))
        return out


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
        keyword, its argument at the field's position, or the class's default; what the
        constructor stores on ``self``; a class attribute; what a function returns."""
        if depth > MAX_DEPTH:
            return list(self._queries.cut(_UNRESOLVED_ONLY))
        return list(self._queries.ask(("field", module, function, id(holder), field), holder,
                                      lambda: tuple(self._field_kernels_of(module, function, holder, field, depth)),
                                      _UNRESOLVED_ONLY))  # fmt: skip


    def _field_kernels_of(self, module: str, function: str | None, holder: Value, field: str, depth: int) -> list[Any]:
        if holder.kind == "const" and holder.data is None:
            return []  # ``kernels = None`` before ``if n: kernels = get_kernels(...)``: no object, no field
        if holder.kind == "local":
            out: list[Any] = []
            for item in holder.items:
                out.extend(self._field_kernels(module, function, item, field, depth + 1))
            return out if holder.items else [UNRESOLVED]  # each part answered ([]: a field set to None)
        if holder.kind == "name":
            facts = self.modules[module]
            if holder.data in facts.globals:
                out = []
                for item in facts.globals[holder.data]:
                    out.extend(self._field_kernels(module, None, item, field, depth + 1))
                return out if facts.globals[holder.data] else [UNRESOLVED]
            resolved = self.resolve_dotted(holder.data)
            if resolved is not None and resolved[0] in self.modules and resolved != (module, holder.data):
                return self._field_kernels(resolved[0], None, Value("name", resolved[1]), field, depth + 1)
            return [UNRESOLVED]
        if holder.kind == "class":  # ``Mesh._compress_kernel``: a class attribute
            found = self.class_attribute_kernels(module, holder.data, field, depth + 1)
            return found if found is not None else [UNRESOLVED]
        if holder.kind == "attr" and holder.items and holder.items[0].kind == "self" and function is not None:
            # ``k = self.kernels; k.zero``: what the class's methods store there
            class_name = self.class_of(FunctionRef(module, function))
            out = []
            for where, item in self.self_attr_values(module, class_name, holder.data) if class_name else ():
                out.extend(self._field_kernels(where.module, where.qualname, item, field, depth + 1))
            return out or [UNRESOLVED]
        if holder.kind == "param" and function is not None:
            out = []
            for passed_module, passed_function, passed in self.passed_values(FunctionRef(module, function), holder.data) or ():
                out.extend(self._field_kernels(passed_module, passed_function, passed, field, depth + 1))
            return out or [UNRESOLVED]
        if holder.kind == "sub" and len(holder.items) == 2:
            # ``family, dims = make(x); family.stvk``: the item of what the call returns at
            # that position. ``_KERNELS[dtype].forward`` of a table of NamedTuples: the field
            # of the row a constant key picks, else of every row the table holds.
            rows = self._picked(module, function, holder, depth + 1)
            if rows is None:
                rows = self._keyed_values(module, function, holder, depth + 1)
            if rows is None:
                rows = self._table_rows(module, function, holder.items[0], 0)
            if not rows:
                return [UNRESOLVED]
            out = []
            for row_module, row_function, row in rows:
                out.extend(self._field_kernels(row_module, row_function, row, field, depth + 1))
            return out  # each row answered ([]: the field is None there, no kernel)
        if holder.kind != "call":
            return [UNRESOLVED]
        if holder.data in NAMESPACE_CLASSES:  # ``types.SimpleNamespace(zero=zero, fill=fill)``
            for item in holder.items:
                if item.kind == "kw" and item.data == field:
                    return self.kernels_of_value(module, function, item.items[0], depth + 1)
            return [UNRESOLVED]
        # The object's class when the call builds it (``Kernels(step=k)``); a factory that
        # returns one (``def make(dtype) -> ...: return Kernels(...)``) is read through its
        # returns, whose arguments are the constructor's, not the factory call's.
        cls = self._class_of_value(module, holder)
        if cls is not None and self._class_returned(module, holder.data) is not None:
            cls = None
        if cls is None:
            names = self._namedtuple_fields(module, holder.data)
            if names is not None:  # ``Kernels = namedtuple("Kernels", ["step", "fill"])``
                return self._constructed_field(module, function, holder, field, [(n, UNKNOWN) for n in names], None, depth)
            return self._returned_field(module, function, holder, field, depth)
        init = self.method(cls[0], cls[1], "__init__")
        if init is not None:  # a constructor of the project's: what it stores on ``self``
            return self._stored_field(module, function, holder, init, cls, field, depth)
        fields = self.modules[cls[0]].class_fields.get(cls[1], ())
        return self._constructed_field(module, function, holder, field, fields, cls[0], depth)


    def _constructed_field(self, module: str, function: str | None, holder: Value, field: str,
                           fields: Any, defaults_module: str | None, depth: int) -> list[Any]:  # fmt: skip
        """``field`` of a NamedTuple/dataclass built as ``holder``: its keyword, its argument at
        the field's position, or the default."""
        for item in holder.items:
            if item.kind == "kw" and item.data == field:
                return self.kernels_of_value(module, function, item.items[0], depth + 1)
        names = [name for name, _default in fields]
        if field not in names:
            return [UNRESOLVED]
        positional = [item for item in holder.items if item.kind != "kw"]
        index = names.index(field)
        if index < len(positional):
            return self.kernels_of_value(module, function, positional[index], depth + 1)
        default = fields[index][1]
        if defaults_module is None or default.kind == "unknown":
            return [UNRESOLVED]
        return self.kernels_of_value(defaults_module, None, default, depth + 1)


    def _stored_field(self, module: str, function: str | None, holder: Value, init: FunctionRef,
                      cls: tuple[str, str], field: str, depth: int) -> list[Any]:  # fmt: skip
        """``field`` of an object built as ``holder`` by a class with its own ``__init__``:
        what its methods store on ``self`` (a constructor's parameter: what this call passes),
        else a class attribute."""
        init_fact = self.function(init)
        stored = self.self_attr_values(cls[0], cls[1], field)
        out: list[Any] = []
        for where, item in stored:
            if item.kind == "param" and where == init and init_fact is not None:
                argument = _argument_for(init_fact, holder, item.data)
                if argument is None:
                    default = init_fact.defaults.get(item.data)
                    out.extend(self.kernels_of_value(init.module, None, default, depth + 1) if default is not None else [UNRESOLVED])
                else:
                    out.extend(self.kernels_of_value(module, function, argument, depth + 1))
            else:
                out.extend(self.kernels_of_value(where.module, where.qualname, item, depth + 1))
        found = self.class_attribute_kernels(cls[0], cls[1], field, depth + 1)
        if found is not None:
            out.extend(found)
        return out or [UNRESOLVED]


    def _returned_field(self, module: str, function: str | None, holder: Value, field: str, depth: int) -> list[Any]:
        """``field`` of what a project function returns (``kernels = get_kernels(dtype);
        kernels.step``). Returns that give the field different kernels are branches this call
        may or may not take (``if order == "double": return make_double(...)``): unknown, as
        a field set to None on some of them is not (it holds no kernel there)."""
        target = self.resolve_call(module, self.function(FunctionRef(module, function)) if function else None, holder.data)
        fact = self.function(target) if target is not None else None
        if fact is None or not fact.returns:
            return [UNRESOLVED]
        answers: list[list[Any]] = []
        for returned in fact.returns:
            if returned.kind == "param":  # handed back: the call's own argument
                argument = _argument_for(fact, holder, returned.data)
                answers.append(self._field_kernels(module, function, argument, field, depth + 1) if argument is not None
                               else [UNRESOLVED])  # fmt: skip
            else:
                answers.append(self._field_kernels(target.module, target.qualname, returned, field, depth + 1))  # type: ignore[union-attr]
        held = {frozenset(answer) for answer in answers if answer}
        if len(held) > 1:
            return [UNRESOLVED]
        return [ref for answer in answers for ref in answer]  # [] when every return sets the field to None


    def _built_holder(self, module: str, function: str | None, value: Value, depth: int) -> list[Any] | None:
        """The kernels an object built by ``value`` holds when it only holds its arguments: a
        class made by ``namedtuple(...)``, ``types.SimpleNamespace(...)``. None otherwise."""
        if value.data not in NAMESPACE_CLASSES and self._namedtuple_fields(module, value.data) is None:
            return None
        out: list[Any] = []
        for item in value.items:
            out.extend(self.kernels_of_value(module, function, item.items[0] if item.kind == "kw" else item, depth + 1))
        return out


    def _namedtuple_fields(self, module: str, dotted: str) -> list[str] | None:
        """The field names of a class made by ``namedtuple("Name", ["a", "b"])`` (or
        ``"a b"``) bound to the module global ``dotted`` of ``module`` (or imported)."""
        facts = self.modules.get(module)
        if facts is None or not dotted:
            return None
        if dotted not in facts.globals:
            resolved = self.resolve_dotted(dotted)
            if resolved is None or resolved[0] == module or resolved[0] not in self.modules:
                return None
            module, dotted = resolved
            facts = self.modules[module]
        values = facts.globals.get(dotted, ())
        if len(values) != 1 or values[0].kind != "call" or not values[0].data.endswith("namedtuple"):
            return None
        arguments = [item for item in values[0].items if item.kind != "kw"]
        if len(arguments) < 2:
            return None
        names = arguments[1]
        if names.kind == "const" and isinstance(names.data, str):
            return names.data.replace(",", " ").split()
        if names.kind == "tuple" and all(item.kind == "const" and isinstance(item.data, str) for item in names.items):
            return [item.data for item in names.items]
        return None


    def class_attribute_kernels(self, module: str, class_name: str, attr: str, depth: int = 0) -> list[Any] | None:
        """The kernels ``Class.attr`` holds as the class body defines it, or the first project
        base that does (Python's lookup order, depth first): a kernel defined there
        (``@staticmethod @wp.kernel def attr``) or a class-body assignment (``attr =
        make(wp.float32)``). None when neither the class nor a base the model knows binds
        ``attr``, or a method does."""
        if depth > MAX_DEPTH:
            return None
        for where, name in self.class_chain(module, class_name):
            facts = self.modules[where]
            own = [KernelRef(where, index) for index, kernel in enumerate(facts.kernels)
                   if kernel.owner == name and kernel.name == attr]  # fmt: skip
            assigned = [value for field, value in facts.class_fields.get(name, ()) if field == attr and value.kind != "unset"]
            if own or assigned:
                out: list[Any] = list(own)
                for value in assigned:
                    out.extend(self.kernels_of_value(where, None, value, depth + 1) if value.kind != "unknown" else [UNRESOLVED])
                return out
            if f"{name}.{attr}" in facts.functions:
                return None  # a method: not a kernel
        return None


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
        if _is_empty_container(value):  # ``self._kernels = dict()``, filled later: its other bindings hold them
            return []
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
        if value.kind == "local":  # assigned in several places: the elements of any of them
            return self._elements_of_each([(module, function, item) for item in value.items], depth)
        if value.kind == "elem" and value.items:  # ``for row in rows: for k in row``: the elements of every row
            rows = self._elements(module, function, value.items[0], depth + 1)
            return self._elements_of_each(rows, depth) if rows is not None else None
        if value.kind == "stored" and value.items:  # an entry a function stored in a global table
            return self._elements(module, value.data, value.items[0], depth + 1)
        if value.kind == "attr" and value.items and value.items[0].kind == "self" and function is not None:
            class_name = self.class_of(FunctionRef(module, function))
            assigned = self.self_attr_values(module, class_name, value.data) if class_name else []
            return _joined(assigned, lambda a: self._elements(a[0].module, a[0].qualname, a[1], depth + 1)) or None
        if value.kind == "call" and value.data in ("list", "tuple") and len(value.items) == 1 and value.items[0].kind != "kw":
            return self._elements(module, function, value.items[0], depth + 1)  # ``list(DEFAULT_TERMS)``: a copy
        if value.kind == "call" and not value.items and value.data.endswith((".values", ".items")):
            return self._mapping_elements(module, function, value, depth)
        if value.kind == "call" and all(item.kind != "kw" for item in value.items) and self._namedtuple_fields(module, value.data):
            return [(module, function, item) for item in value.items]  # ``Pair(a, b)``: a tuple
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
            return _joined(self.passed_values(ref, value.data) or (), lambda p: self._elements(p[0], p[1], p[2], depth + 1)) or None
        return None


    def _elements_of_each(self, alternatives: list[tuple[str, str | None, Value]],
                          depth: int) -> list[tuple[str, str | None, Value]] | None:  # fmt: skip
        """The elements of every alternative (a local's assignments, a table's bindings); None
        when those of any one cannot be told. ``[]`` for none: an empty container."""
        return _joined(alternatives, lambda a: self._elements(a[0], a[1], a[2], depth + 1))

    def _mapping_elements(self, module: str, function: str | None, value: Value,
                          depth: int) -> list[tuple[str, str | None, Value]] | None:  # fmt: skip
        """``table.values()`` / ``table.items()`` of a table the model follows (a local,
        ``self.attr`` as the class's methods fill it, a global: ``_table_bindings``): every value
        any binding puts in it, or a (key, value) pair of each (the key unknown: it holds no
        kernel). None when a binding's values cannot be told."""
        table, _, method = value.data.rpartition(".")
        bindings = self._table_bindings(module, function, table) if table else None
        if not bindings:
            return None
        found = self._elements_of_each(bindings, depth)
        if found is None or method == "values":
            return found
        return [(where, binder, self._item_pair(item)) for where, binder, item in found]

    def _item_pair(self, item: Value) -> Value:
        """The (key, value) pair ``dict.items()`` yields for a value ``item`` (the key unknown),
        made once per value: the model's memos key values by identity."""
        pairs: dict[int, tuple[Value, Value]] = self.memo("program.item_pairs", dict)
        held = pairs.get(id(item))
        if held is None or held[0] is not item:
            held = pairs[id(item)] = (item, Value("tuple", None, (UNKNOWN, item)))
        return held[1]

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
            if row.kind == "tuple" and row.data == COMPREHENSION:  # ``bufs[1]`` of ``[make() for ...]``
                out.append((row_module, row_function, row.items[0]))
                continue
            for items in self._tuples(row_module, row_function, row, depth + 1) or [None]:
                if items is None or not -len(items) <= index.data < len(items):
                    return None
                out.append(items[index.data])
        return out

    def _tuples(self, module: str, function: str | None, value: Value,
                depth: int) -> tuple[tuple[tuple[str, str | None, Value], ...], ...] | None:  # fmt: skip
        """The tuple literals ``value`` can be, each one alternative with its items in order:
        what ``value[i]`` picks by position. None when any alternative is no tuple the model
        sees (a dict is keyed, not indexed by position)."""
        if depth > MAX_DEPTH:
            return self._queries.cut(None)
        return self._queries.ask(("tuples", module, function, id(value)), value,
                                 lambda: self._tuples_of(module, function, value, depth), None)

    def _tuples_of(self, module: str, function: str | None, value: Value,
                   depth: int) -> tuple[tuple[tuple[str, str | None, Value], ...], ...] | None:  # fmt: skip
        kind = value.kind
        if kind == "tuple":
            return (tuple((module, function, item) for item in value.items),)
        alternatives: list[tuple[str, str | None, Value]] | None = None
        if kind == "local":
            alternatives = [(module, function, item) for item in value.items]
        elif kind == "name":
            facts = self.modules.get(module)
            if facts is not None and value.data in facts.globals:
                alternatives = [(module, None, item) for item in facts.globals[value.data]]
            else:
                resolved = self.resolve_dotted(value.data)  # a table imported from another module
                if resolved is not None and resolved[0] != module and resolved[0] in self.modules:
                    alternatives = [(resolved[0], None, Value("name", resolved[1]))]
        elif kind == "attr" and value.items and value.items[0].kind == "self" and function is not None:
            class_name = self.class_of(FunctionRef(module, function))
            if class_name is not None:
                alternatives = [(where.module, where.qualname, item)
                                for where, item in self.self_attr_values(module, class_name, value.data)]  # fmt: skip
        elif kind == "call" and value.data in ("list", "tuple") and len(value.items) == 1 and value.items[0].kind != "kw":
            alternatives = [(module, function, value.items[0])]  # ``list(DEFAULT_TERMS)``: a copy
        elif kind == "call" and all(item.kind != "kw" for item in value.items) and self._namedtuple_fields(module, value.data):
            return (tuple((module, function, item) for item in value.items),)  # ``Pair(a, b)``: a tuple
        elif kind == "call":  # ``a, b = make()``: what the one return statement builds
            target = self.resolve_call(module, self.function(FunctionRef(module, function)) if function else None, value.data)
            fact = self.function(target) if target is not None else None
            if fact is not None and len(fact.returns) == 1:
                alternatives = [(target.module, target.qualname, fact.returns[0])]  # type: ignore[union-attr]
        elif kind == "param" and function is not None:
            ref = FunctionRef(module, function)
            fact = self.function(ref)
            if fact is not None and self.default_decides(ref, value.data):
                alternatives = [(module, None, fact.defaults[value.data])]
            else:
                alternatives = self.passed_values(ref, value.data)
        if not alternatives:
            return None
        out = _joined(alternatives, lambda a: self._tuples(a[0], a[1], a[2], depth + 1))
        return tuple(out) if out is not None else None


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
                for param in handed_kernel_params(launch.kernel) or ():  # a launching helper: ``def _launch(kernel, x)``
                    refs.extend(self._kernels_passed_for(module, launch.function, param))
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
        if (option.target.kind == "name" and self._outside is not None and imports_top_of(self.modules[module], option.target.data)
                and self._outside(option.target.data) is not None):  # fmt: skip
            return [option.target.data]  # a module object the project imports from outside it
        return out
