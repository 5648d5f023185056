"""What a value can be: constants through defaults, call sites, tuples and loop tables; whether
it varies between calls; the dtypes an array argument can have.
"""

from __future__ import annotations

from typing import Any

from warp_ct.analyzer.facts import (
    DEVICE_WORDS,
    Value,
)
from warp_ct.analyzer.program.base import (
    _DTYPE_ALIASES,
    _FLOAT_SUFFIXED,
    _UNRESOLVED_ONLY,
    MAX_DEPTH,
    UNRESOLVED,
    FunctionRef,
    _identity,
    _positional_index,
    argument_passed,
    converted,
)

_UNKNOWN_DTYPE = frozenset({"?"})

# A condition on the device (``256 if "cuda" in device else 1``), and the CPU's block_dim.
_CPU_BLOCK_DIM = Value("const", 1)

# NumPy constructors and the position of their ``dtype`` argument.
_NUMPY_DTYPE_POSITION = {
    "numpy.zeros": 1, "numpy.ones": 1, "numpy.empty": 1, "numpy.full": 2,
    "numpy.array": 1, "numpy.asarray": 1, "numpy.ascontiguousarray": 1,
}  # fmt: skip


# Array methods whose result holds the array's own elements (``view(dtype)`` does not).
_SAME_DTYPE_METHODS = frozenset({"flatten", "reshape", "contiguous", "transpose"})

# Python's types as array dtypes: Warp stores ``dtype=float`` as float32, ``int`` as int32.
_PYTHON_DTYPES = {"float": "warp.float32", "int": "warp.int32", "bool": "warp.bool"}


def _canonical_dtype(name: str) -> str:
    """One spelling per Warp type: ``wp.vec4`` is ``wp.vec4f``, ``np.float32`` is ``wp.float32``."""
    name = _DTYPE_ALIASES.get(name, name)
    if name.startswith(_FLOAT_SUFFIXED) and name.endswith("f") and not name.endswith(("_f",)):
        return name[:-1]
    return name


# Calls that convert or wrap a constant without changing what it says.
_CONVERSIONS = {
    "int": int, "float": float, "str": str, "bool": bool, "warp.constant": _identity,
    "warp.int32": int, "warp.int64": int, "warp.uint32": int, "warp.float32": float, "warp.float64": float,
}  # fmt: skip


def _reads_self_attr(value: Value, attr: str, depth: int = 0) -> bool:
    """``value`` reads ``self.<attr>`` (an update computed from the attribute's own value)."""
    if value.kind == "attr" and value.data == attr and value.items and value.items[0].kind == "self":
        return True
    return depth < MAX_DEPTH and any(_reads_self_attr(item, attr, depth + 1) for item in value.items)


def _alternatives(returns: list[Value]) -> list[Value]:
    """A function's returns, each arm of a returned ``a if c else b`` on its own: a helper that
    returns one dtype or another by its input (``wp.float64 if x.dtype == np.float64 else
    wp.float32``) dispatches as one with a ``return`` per dtype does."""
    out: list[Value] = []
    for item in returns:
        out.extend(item.items if item.kind == "choice" else (item,))
    return out


class Values:
    """Part of :class:`Program` (``self`` is the program)."""

    def resolve(self, module: str, function: str | None, value: Value | None, depth: int = 0) -> list[Any]:
        """The concrete values ``value`` can take (constants); ``UNRESOLVED`` among them
        when some path is unknown."""
        if value is None:
            return [UNRESOLVED]
        if depth > MAX_DEPTH:
            return list(self._queries.cut(_UNRESOLVED_ONLY))
        return list(self._queries.ask(("resolve", module, function, id(value), self._on_gpu), value,
                                      lambda: self._resolve_distinct(module, function, value, depth + 1),
                                      _UNRESOLVED_ONLY))  # fmt: skip


    def resolve_on_gpu(self, module: str, function: str | None, value: Value | None) -> list[Any]:
        """``resolve`` as a CUDA launch's block_dim sees it: ``X if "cuda" in device else 1`` is X
        wherever it is written (a stage table, a field), since the CPU's value never reaches a
        GPU build; ``knobs.get("block_dim", 256)`` is its default."""
        previous, self._on_gpu = self._on_gpu, True
        try:
            return self.resolve(module, function, value)
        finally:
            self._on_gpu = previous


    def _resolve_distinct(self, module: str, function: str | None, value: Value, depth: int) -> tuple[Any, ...]:
        unique: list[Any] = []
        for item in self._resolve(module, function, value, depth):
            if not any(item is u or (type(item) is type(u) and item == u) for u in unique):
                unique.append(item)
        return tuple(unique)


    def _resolve(self, module: str, function: str | None, value: Value, depth: int) -> list[Any]:
        kind = value.kind
        if kind == "const":
            return [value.data]
        if kind == "local":
            out = []
            for item in value.items:
                out.extend(self.resolve(module, function, item, depth))
            return out or [UNRESOLVED]
        if kind == "param":
            return self.param_values(FunctionRef(module, function), value.data, depth) if function else [UNRESOLVED]
        if kind == "name":
            named = value.data.removesuffix(".__name__")
            if named != value.data and named in self.modules:
                return [named]  # ``diagnostics.__name__`` of an imported module
            if function is not None and "." not in value.data:
                captured = self._captured_values(module, function, value.data, depth)
                if captured is not None:
                    return captured
            return self._global_values(module, value.data, depth)
        if kind == "attr" and value.items and value.items[0].kind == "self" and function:
            class_name = self.class_of(FunctionRef(module, function))
            if class_name is None:
                return [UNRESOLVED]
            out = []
            for where, item in self.self_attr_values(module, class_name, value.data):
                out.extend(self.resolve(where.module, where.qualname, item, depth))
            return out or [UNRESOLVED]
        if kind == "tuple":
            # Unknown items stay in place: ``(kernel, 64)`` still says 64 at index 1.
            parts = [self.resolve(module, function, item, depth) for item in value.items]
            return [tuple(p[0] if len(p) == 1 else UNRESOLVED for p in parts)]
        if kind == "sub":
            if len(value.items) == 2:
                bases = self.resolve(module, function, value.items[0], depth)
                indices = self.resolve(module, function, value.items[1], depth)
                out = []
                for base in bases:
                    for index in indices:
                        try:
                            out.append(base[index] if base is not UNRESOLVED and index is not UNRESOLVED else UNRESOLVED)
                        except (TypeError, IndexError, KeyError):
                            out.append(UNRESOLVED)
                return out or [UNRESOLVED]
            return [UNRESOLVED]
        if kind == "elem":
            out = []
            for iterable in self.resolve(module, function, value.items[0], depth):
                if isinstance(iterable, (tuple, list)):
                    out.extend(iterable)
                elif isinstance(iterable, range):
                    out.extend(iterable)
                else:
                    out.append(UNRESOLVED)
            return out or [UNRESOLVED]
        if kind == "choice":
            out = []
            items = value.items
            if self._on_gpu and value.data and any(word in value.data.lower() for word in DEVICE_WORDS):
                # The CPU's arm never reaches a GPU build; a one-armed choice (``if not
                # device.is_cuda: tile = 1``) is then no value at all.
                items = tuple(item for item in items if item != _CPU_BLOCK_DIM) or (items if len(items) > 1 else ())
            for item in items:
                out.extend(self.resolve(module, function, item, depth))
            return out
        if kind == "call":
            convert = _CONVERSIONS.get(value.data)
            if convert is not None and len(value.items) == 1:
                return converted(self.resolve(module, function, value.items[0], depth), convert)
            if (self._on_gpu and value.data.endswith(".get") and len(value.items) == 2
                    and value.items[1].kind != "kw"):  # fmt: skip
                # A tuning knob read with a default (``overrides.get("block_dim", 256)``) is
                # its default: a run that overrides it asks for another build knowingly.
                return self.resolve(module, function, value.items[1], depth)
            if value.data == "range" and value.items:
                bounds = [self.resolve(module, function, item, depth) for item in value.items if item.kind != "kw"]
                if all(len(b) == 1 and isinstance(b[0], int) for b in bounds):
                    return [range(*[b[0] for b in bounds])]
            return [UNRESOLVED]
        if kind == "binop":
            left = self.resolve(module, function, value.items[0], depth)
            right = self.resolve(module, function, value.items[1], depth)
            if len(left) == 1 and len(right) == 1 and isinstance(left[0], (int, float)) and isinstance(right[0], (int, float)):
                import operator

                ops = {"Add": operator.add, "Sub": operator.sub, "Mult": operator.mul, "FloorDiv": operator.floordiv,
                       "Pow": operator.pow, "LShift": operator.lshift}  # fmt: skip
                op = ops.get(value.data)
                if op is not None:
                    try:
                        return [op(left[0], right[0])]
                    except (ArithmeticError, ValueError):
                        return [UNRESOLVED]
            return [UNRESOLVED]
        return [UNRESOLVED]


    def _captured_values(self, module: str, function: str, name: str, depth: int) -> list[Any] | None:
        """A nested function's free ``name`` bound in a function around it (``_bd = 256``
        read by a closure; Python looks there before the module's globals): every value that
        function assigns to it (the closure may run after any of them), or what its callers
        pass for a parameter of that name. None when no enclosing function binds it."""
        fact = self.function(FunctionRef(module, function))
        if fact is None or fact.parent is None or name in fact.params or name in fact.locals:
            return None
        parent: str | None = fact.parent
        while parent is not None:
            outer = self.function(FunctionRef(module, parent))
            if outer is None:
                return None
            if name in outer.params:
                if name in outer.locals:  # rebound in the body: the caller's value or the body's
                    out = self.param_values(FunctionRef(module, parent), name, depth)
                    for item in outer.locals[name]:
                        out.extend(self.resolve(module, parent, item, depth))
                    return out
                return self.param_values(FunctionRef(module, parent), name, depth)
            if name in outer.locals:
                out = []
                for item in outer.locals[name]:
                    out.extend(self.resolve(module, parent, item, depth))
                return out or [UNRESOLVED]
            if name in outer.loop_tables:
                return self.resolve(module, parent, outer.loop_tables[name], depth)
            parent = outer.parent
        return None


    def _global_values(self, module: str, dotted: str, depth: int) -> list[Any]:
        facts = self.modules.get(module)
        if facts is not None and dotted in facts.globals:
            values = facts.globals[dotted]
            if len(values) == 1:
                return self.resolve(module, None, values[0], depth)
            return [UNRESOLVED]
        resolved = self.resolve_dotted(dotted)
        if resolved is not None and resolved[0] != module or (resolved and resolved[1] != dotted):
            target = self.modules.get(resolved[0])
            if target is not None and resolved[1] in target.globals and len(target.globals[resolved[1]]) == 1:
                return self.resolve(resolved[0], None, target.globals[resolved[1]][0], depth)
        return [UNRESOLVED]


    def param_values(self, ref: FunctionRef, param: str, depth: int = 0) -> list[Any]:
        """A parameter's values over every call site in the project (its default where a
        call omits it; unknown where a call passes ``*args``)."""
        fact = self.function(ref)
        if fact is None or param not in fact.params:
            return [UNRESOLVED]
        index = _positional_index(fact, param)
        out: list[Any] = []
        sites = self.callers(ref)
        for caller, module, call in sites:
            caller_name = caller.qualname if caller is not None and caller.qualname not in ("<main>", "<atexit>") else None
            if param in call.kwargs:
                out.extend(self.resolve(module, caller_name, call.kwargs[param], depth))
            elif 0 <= index < len(call.args):
                out.extend(self.resolve(module, caller_name, call.args[index], depth))
            elif call.passes_star:
                out.append(UNRESOLVED)
            elif param in fact.defaults:
                out.extend(self.resolve(ref.module, None, fact.defaults[param], depth))
            else:
                out.append(UNRESOLVED)
        if not sites:
            if param in fact.defaults:
                out.extend(self.resolve(ref.module, None, fact.defaults[param], depth))
            else:
                out.append(UNRESOLVED)
        return out


    def capture_varies(self, ref: FunctionRef, name: str, called: bool = False) -> bool:
        """Whether the value a kernel defined in ``ref`` captures as ``name`` (a parameter, a
        loop variable, a local) can differ from one definition to the next: each new value
        is a new kernel hash. A helper ``@wp.func`` defined beside it is source, not data.
        ``called``: the kernel calls it, so it is a Warp function, whose part of the hash is
        its code: one its callers pass, or one ``create_warp_function`` makes of a Python
        function (keyed by that function's source), is the same code whenever it is the same
        function (newton's ``test_body_state``: the same lambda 3 times, 1 build)."""
        fact = self.function(ref)
        if fact is None:
            return False
        if name in fact.params:
            return not called and self.varies(ref.module, ref.qualname, Value("param", name))
        if name in fact.loop_tables:
            return self.varies(ref.module, ref.qualname, fact.loop_tables[name])
        values = [v for v in fact.locals.get(name, ()) if v.kind not in ("kernel", "function")]
        if called:
            values = [v for v in values if not _is_function_code(v)]
        return any(self.varies(ref.module, ref.qualname, v) for v in values)


    def varies(self, module: str, function: str | None, value: Value, depth: int = 0) -> bool:
        """Whether an expression can take different values between calls: two known values,
        or an unknown one that comes from a loop variable or a call result. An attribute of
        a settings object (``cfg.gain``) or a name the model cannot follow is taken as
        fixed for the run: such values rarely change between steps."""
        if depth > MAX_DEPTH:
            return self._queries.cut(False)
        return self._queries.ask(("varies", module, function, id(value)), value,
                                 lambda: self._varies(module, function, value, depth), False)  # fmt: skip


    def _varies(self, module: str, function: str | None, value: Value, depth: int) -> bool:
        known = self.resolve(module, function, value)
        concrete = [v for v in known if v is not UNRESOLVED]
        if len({repr(v) for v in concrete}) > 1:
            return True
        if len(concrete) == len(known):
            return False
        kind = value.kind
        if kind in ("elem", "changed"):
            return True
        if kind == "attr" and value.items and value.items[0].kind == "self" and function is not None:
            class_name = self.class_of(FunctionRef(module, function))
            assigned = self.self_attr_values(module, class_name, value.data) if class_name else []
            # ``self.scale = self.scale * 0.5`` in a method: each call moves the value on.
            if any(_reads_self_attr(item, value.data) for _where, item in assigned):
                return True
            return any(self.varies(where.module, where.qualname, item, depth + 1) for where, item in assigned)
        if kind == "param" and function is not None:
            ref = FunctionRef(module, function)
            if self.function(ref) is None:
                return False
            if not self.callers(ref):
                return True  # callers outside the linted code may pass anything
            for caller_module, caller_name, call, arg in self.arguments_for(ref, value.data):
                if arg is None:
                    continue
                if call.loop_depth and arg.kind != "const" or self.varies(caller_module, caller_name, arg, depth + 1):
                    return True
            return False
        if kind == "local":
            return any(self.varies(module, function, item, depth + 1) for item in value.items)
        if kind in ("binop", "tuple", "choice", "sub"):
            return any(self.varies(module, function, item, depth + 1) for item in value.items)
        if kind == "call":
            if value.data in ("int", "float", "str", "bool", "range", "len"):
                return any(self.varies(module, function, item, depth + 1) for item in value.items)
            return True  # time.time(), random...: a fresh value each call
        if kind == "method":  # ``make().next()``: as a call
            return True
        return False


    def array_dtypes(self, module: str, function: str | None, value: Value, depth: int = 0) -> set[str]:
        """The dtypes (as dotted names, "?" when unknown) an array argument can have:
        ``wp.zeros(n, dtype=D)``, ``wp.empty_like(x)``, through locals, loop tables and the
        call sites of parameters."""
        # A parameter's dtypes fan out over every call site, recursively: memoized.
        if depth > MAX_DEPTH:
            return set(self._queries.cut(_UNKNOWN_DTYPE))
        return set(self._queries.ask(("dtypes", module, function, id(value)), value,
                                     lambda: frozenset(self._array_dtypes(module, function, value, depth)),
                                     _UNKNOWN_DTYPE))  # fmt: skip


    def _array_dtypes(self, module: str, function: str | None, value: Value, depth: int) -> set[str]:
        kind = value.kind
        if kind == "name":
            if value.data.startswith(("warp.", "numpy.")):
                return {_canonical_dtype(value.data)}
            if value.data in _PYTHON_DTYPES:  # ``wp.array(..., dtype=float)``
                return {_PYTHON_DTYPES[value.data]}
            facts = self.modules.get(module)
            if facts is not None and len(facts.globals.get(value.data, ())) == 1:
                return self.array_dtypes(module, None, facts.globals[value.data][0], depth + 1)
            if function is not None and "." in value.data:
                return self._object_attribute_dtypes(module, function, value.data, depth)
            return {"?"}
        if kind in ("local", "choice"):  # each value assigned; each arm of ``a if c else b`` taken
            out: set[str] = set()
            for item in value.items if kind == "local" else self._arms_taken(module, function, value):
                out |= self.array_dtypes(module, function, item, depth + 1)
            return out or {"?"}
        if kind in ("elem", "sub"):
            picked = self._picked(module, function, value, depth + 1)
            if picked is None:
                return {"?"}
            out = set()
            for item_module, item_function, item in picked:
                out |= self.array_dtypes(item_module, item_function, item, depth + 1)
            return out or {"?"}
        if kind == "attr" and value.items and value.items[0].kind == "self" and function is not None:
            class_name = self.class_of(FunctionRef(module, function))
            out = set()
            for where, item in self.self_attr_values(module, class_name, value.data) if class_name else ():
                out |= self.array_dtypes(where.module, where.qualname, item, depth + 1)
            return out or {"?"}
        if kind == "param" and function is not None:
            ref = FunctionRef(module, function)
            fact = self.function(ref)
            if fact is None or value.data not in fact.params:
                return {"?"}
            out = set()
            for caller_module, caller_name, _call, arg in self.arguments_for(ref, value.data):
                out |= self.array_dtypes(caller_module, caller_name, arg, depth + 1) if arg is not None else {"?"}
            return out or {"?"}
        if kind == "call":
            keywords = {item.data: item.items[0] for item in value.items if item.kind == "kw"}
            positional = [item for item in value.items if item.kind != "kw"]
            if "dtype" in keywords:
                return self.array_dtypes(module, function, keywords["dtype"], depth + 1)
            if value.data.endswith("_like") and positional:
                return self.array_dtypes(module, function, positional[0], depth + 1)
            if value.data == "getattr" and len(positional) == 2:
                return self._getattr_dtypes(module, function, positional, depth)
            receiver, _, method = value.data.rpartition(".")
            if receiver and method in _SAME_DTYPE_METHODS:  # ``x.flatten()``: ``x``'s elements
                named = self._named_value(module, function, receiver)
                return self.array_dtypes(module, function, named, depth + 1) if named is not None else {"?"}
            if value.data in ("warp.array", "warp.from_numpy") and positional:
                return self.array_dtypes(module, function, positional[0], depth + 1)
            struct = self._struct_type(module, value.data)
            if struct is not None:  # ``Sphere()``: a value of a ``wp.struct`` is its own type
                return {struct}
            structs = self._looped_struct_types(module, function, value.data, depth)
            if structs is not None:  # ``for cls in (Sphere, Box): cls()``: one type per pass
                return structs
            index = _NUMPY_DTYPE_POSITION.get(value.data)
            if index is not None and len(positional) > index:  # ``np.zeros(n, np.float64)``
                return self.array_dtypes(module, function, positional[index], depth + 1)
            # A project function's result, when it has one ``return`` (``g = wp.empty(...,
            # dtype=wp.vec2); return g``).
            caller = self.function(FunctionRef(module, function)) if function is not None else None
            target = self.resolve_call(module, caller, value.data) if value.data else None
            fact = self.function(target) if target is not None else None
            returns = _alternatives(fact.returns) if fact is not None else []
            if len(returns) == 1:
                return self.array_dtypes(target.module, target.qualname, returns[0], depth + 1)  # type: ignore[union-attr]
            if returns:
                return self._dispatched_dtypes(module, function, positional, target, returns, depth)  # type: ignore[arg-type]
        return {"?"}


    def warmed_at_import(self, factory: FunctionRef, module: str, function: str | None, call: Any) -> bool:
        """Whether a memoized ``factory``'s module body already called it, at import, with
        every value ``call`` (in ``function`` of ``module``) can pass (``for d in (wp.float32,
        wp.vec3): make(d)`` beside ``make``, then ``make(x.dtype)`` in a step): the call is a
        cache hit and defines nothing. The factory's own module runs its body before anything
        can call it; other modules' bodies may run later. Unknown values: not warmed."""
        fact = self.function(factory)
        if fact is None or not self.memoized(factory):
            return False
        warm = [site for caller, site_module, site in self.callers(factory) if caller is None and site_module == factory.module]
        if not warm:
            return False
        for param in fact.params:
            asked = argument_passed(fact, call, param)
            if asked is None:
                continue  # its default, as a warm-up call that leaves it out has
            wanted = self.values_as_text(module, function, asked)
            if wanted is None:
                return False
            given: set[str] = set()
            for site in warm:
                passed = argument_passed(fact, site, param)
                known = self.values_as_text(factory.module, None, passed) if passed is not None else None
                if known is None:
                    return False
                given |= known
            if not wanted <= given:
                return False
        return True

    def values_as_text(self, module: str, function: str | None, value: Value, depth: int = 0) -> frozenset[str] | None:
        """The values an argument can be, as text: Warp types by their dotted names (a dtype
        ``x.dtype`` reads from its array among them), other constants by ``repr``; None when
        some value is unknown."""
        if depth > MAX_DEPTH:
            return None
        kind, data = value.kind, value.data
        if kind == "name" and isinstance(data, str):
            if data.startswith("warp."):
                return frozenset({_canonical_dtype(data)})
            if data.endswith(".dtype"):
                named = self._named_value(module, function, data[: -len(".dtype")])
                dtypes = self.array_dtypes(module, function, named) if named is not None else {"?"}
                return None if "?" in dtypes else frozenset(dtypes)
            facts = self.modules.get(module)
            if facts is not None and data in facts.globals:  # a module-level loop's variable
                return self._all_as_text([(module, None, item) for item in facts.globals[data]], depth)
        if kind == "local":
            return self._all_as_text([(module, function, item) for item in value.items], depth)
        if kind in ("elem", "sub"):
            picked = self._picked(module, function, value, depth + 1)
            return self._all_as_text(picked, depth) if picked else None
        resolved = self.resolve(module, function, value)
        if not resolved or UNRESOLVED in resolved:
            return None
        return frozenset(repr(item) for item in resolved)

    def _all_as_text(self, values: list[tuple[str, str | None, Value]], depth: int) -> frozenset[str] | None:
        out: set[str] = set()
        for item_module, item_function, item in values:
            known = self.values_as_text(item_module, item_function, item, depth + 1)
            if known is None:
                return None
            out |= known
        return frozenset(out) if out else None

    def _named_value(self, module: str, function: str | None, dotted: str) -> Value | None:
        """The value a dotted name written in ``function`` reads: a parameter, a local, a loop
        element, ``self.x``, or a module-level or object attribute name."""
        fact = self.function(FunctionRef(module, function)) if function is not None else None
        if dotted.startswith("self.") and dotted.count(".") == 1:
            return Value("attr", dotted[5:], (Value("self"),)) if fact is not None else None
        if fact is not None and dotted in fact.params:
            return Value("param", dotted)
        if fact is not None and dotted in fact.locals:
            return Value("local", dotted, tuple(fact.locals[dotted]))
        if fact is not None and dotted in fact.loop_tables:
            return fact.loop_tables[dotted]
        return Value("name", dotted)

    def _object_attribute_dtypes(self, module: str, function: str, dotted: str, depth: int) -> set[str]:
        """``model.pos``: what the methods of the object's class assign to ``self.pos``, over
        every object ``model`` can be (a parameter's arguments, a local's values, a loop's
        elements, what ``self.x`` holds). Unknown when some object is of no project class the
        model sees, when its class assigns no ``self.pos``, or when code outside a class
        writes an attribute of that name (``obj.pos = ...``: some object's, maybe this one's)."""
        head, _, attr = dotted.rpartition(".")
        return self._attribute_dtypes(self._objects_named(module, function, head, depth), attr, depth)

    def _attribute_dtypes(self, objects: list[tuple[str, str | None, Value]] | None, attr: str, depth: int) -> set[str]:
        """What the classes of ``objects`` assign to ``self.<attr>``, as dtypes."""
        if not objects or attr in self._attributes_written_outside():
            return {"?"}
        out: set[str] = set()
        for object_module, object_function, item in objects:
            cls = self._class_of_object(object_module, object_function, item, depth + 1)
            assigned = self.self_attr_values(cls[0], cls[1], attr) if cls is not None else []
            if not assigned:
                return {"?"}
            for where, value in assigned:
                out |= self.array_dtypes(where.module, where.qualname, value, depth + 1)
        return out or {"?"}

    def _getattr_dtypes(self, module: str, function: str | None, arguments: list[Value], depth: int) -> set[str]:
        """``getattr(model, field)`` over names the model resolves (``for field in FIELDS``):
        each named attribute of the object, as ``model.<field>`` reads it."""
        target, name = arguments
        names = self.resolve(module, function, name)
        if function is None or not names or not all(isinstance(n, str) for n in names):
            return {"?"}
        head = {"param": target.data, "local": target.data, "name": target.data}.get(target.kind)
        if target.kind == "attr" and target.items and target.items[0].kind == "self":
            head = "self." + target.data
        if not isinstance(head, str) or "." in head.removeprefix("self."):
            return {"?"}
        objects = self._objects_named(module, function, head, depth)
        out: set[str] = set()
        for attr in names:
            out |= self._attribute_dtypes(objects, attr, depth)
        return out

    def _attributes_written_outside(self) -> frozenset[str]:
        """The attribute names some code writes on an object other than ``self``."""
        found = self._memo.get("attributes written outside")
        if found is None:
            found = self._memo["attributes written outside"] = frozenset(
                attr for facts in self.modules.values() for attr in facts.attr_writes
            )
        return found

    def _objects_named(self, module: str, function: str, head: str, depth: int) -> list[tuple[str, str | None, Value]] | None:
        """(module, function, value) of each object ``head`` (a name, or ``self.x``) can be in
        ``function``; None when the model cannot list them."""
        fact = self.function(FunctionRef(module, function))
        if fact is None:
            return None
        if head.startswith("self.") and head.count(".") == 1:
            class_name = self.class_of(FunctionRef(module, function))
            assigned = self.self_attr_values(module, class_name, head[5:]) if class_name else []
            return [(where.module, where.qualname, value) for where, value in assigned] or None
        if "." in head:
            return None
        if head in fact.params:
            objects = []
            for caller_module, caller_name, _call, argument in self.arguments_for(FunctionRef(module, function), head):
                if argument is None:
                    return None
                objects.append((caller_module, caller_name, argument))
            return objects or None
        if head in fact.locals:
            return [(module, function, value) for value in fact.locals[head]]
        if head in fact.loop_tables:
            return self._picked(module, function, fact.loop_tables[head], depth + 1)
        return None

    def _class_of_object(self, module: str, function: str | None, value: Value, depth: int) -> tuple[str, str] | None:
        """The one project class of the objects ``value`` can be: built here (``Model()``,
        a factory's object), or handed on through parameters, locals and ``self.x``."""
        # A parameter's objects fan out over every call site, recursively: memoized.
        if depth > MAX_DEPTH:
            return self._queries.cut(None)
        return self._queries.ask(("class of object", module, function, id(value)), value,
                                 lambda: self._object_class(module, function, value, depth), None)  # fmt: skip

    def _object_class(self, module: str, function: str | None, value: Value, depth: int) -> tuple[str, str] | None:
        kind = value.kind
        if kind == "call":
            return self._class_of_value(module, value, function)
        objects: list[tuple[str, str | None, Value]] | None = None
        if kind == "local":
            objects = [(module, function, item) for item in value.items]
        elif kind == "param" and function is not None:
            objects = self._objects_named(module, function, value.data, depth)
        elif kind == "attr" and value.items and value.items[0].kind == "self" and function is not None:
            objects = self._objects_named(module, function, "self." + value.data, depth)
        elif kind == "name" and function is not None and "." not in value.data:
            objects = self._objects_named(module, function, value.data, depth)
        classes = {self._class_of_object(m, f, item, depth + 1) for m, f, item in objects or ()}
        return classes.pop() if len(classes) == 1 and None not in classes else None

    def _arms_taken(self, module: str, function: str | None, choice: Value) -> tuple[Value, ...]:
        """The arms of ``a if flag else b`` the program takes, where ``flag`` is a parameter
        every call site gives a constant (``single=True`` here, the default False there): the
        arms those constants pick. No arm otherwise (unknown): a condition on data (``vec3d if dtype ==
        wp.float64 else vec3f``) follows the data, and the model cannot tell which arm one
        call takes (a launch of such a choice may hand each dtype to its own overload)."""
        if function is None or len(choice.items) != 2 or not isinstance(choice.data, str):
            return ()
        fact = self.function(FunctionRef(module, function))
        if fact is None or choice.data not in fact.params:
            return ()
        flags = self.param_values(FunctionRef(module, function), choice.data)
        if not flags or any(flag is UNRESOLVED for flag in flags):
            return ()
        return tuple(arm for arm, taken in zip(choice.items, (True, False)) if any(bool(f) is taken for f in flags))

    def _looped_struct_types(self, module: str, function: str | None, callee: str, depth: int) -> set[str] | None:
        """The ``wp.struct`` types a call of a loop variable makes (``for cls in (Sphere,
        Box): cls()``), when every class the loop runs over is one; None otherwise."""
        if function is None or not callee or "." in callee:
            return None
        fact = self.function(FunctionRef(module, function))
        loop_value = fact.loop_tables.get(callee) if fact is not None else None
        if loop_value is None:
            return None
        picked = self._picked(module, function, loop_value, depth + 1)
        if not picked:
            return None
        found: set[str] = set()
        for item_module, _item_function, item in picked:
            struct = self._struct_type(item_module, item.data) if item.kind == "name" else None
            if struct is None:
                return None
            found.add(struct)
        return found

    def _struct_type(self, module: str, dotted: str) -> str | None:
        """``module.Name`` when ``dotted`` names a module-level ``@wp.struct`` class of the project."""
        if not dotted:
            return None
        where = (module, dotted) if "." not in dotted else self.resolve_dotted(dotted)
        facts = self.modules.get(where[0]) if where is not None else None
        if facts is None or "." in where[1]:  # type: ignore[index]
            return None
        name = where[1]  # type: ignore[index]
        if any(struct == name and function is None for struct, function, _order, _line in facts.structs):
            return f"{where[0]}.{name}"  # type: ignore[index]
        return None


    def _dispatched_dtypes(self, module: str, function: str | None, arguments: list[Value], target: FunctionRef,
                           returns: Any, depth: int) -> set[str]:
        """The dtypes of a call to a helper with several returns. Such a helper is a dispatch
        on its input (``if x.dtype == np.float32: return wp.float32``; Warp's
        ``type_scalar_type``): the union of its returns is no set of dtypes one call meets.
        What a call can get is each dtype of its arguments that the helper also returns, the
        same type in Warp's spelling; anything else is unknown."""
        returned: set[str] = set()
        for item in returns:
            returned |= self.array_dtypes(target.module, target.qualname, item, depth + 1)
        if "?" in returned:
            return {"?"}
        passed: set[str] = set()
        for argument in arguments:
            passed |= self.array_dtypes(module, function, argument, depth + 1)
        return (passed & returned) or {"?"}


    def default_decides(self, ref: FunctionRef, param: str) -> bool:
        """True when no call site in the project passes ``param``: its default is its value."""
        fact = self.function(ref)
        if fact is None or param not in fact.defaults:
            return False
        index = _positional_index(fact, param)
        for _caller, _module, call in self.callers(ref):
            if param in call.kwargs or index < len(call.args) or call.passes_star:
                return False
        return True


# Warp's maker of a ``wp.Function`` from a Python function: its key is the source's hash.
_FUNCTION_MAKERS = ("warp.utils.create_warp_function", "warp._src.utils.create_warp_function")


def _is_function_code(value: Value) -> bool:
    """A called capture's value that is code, not data: a parameter (what callers pass), or
    what ``create_warp_function`` returns (``fn, _ = wp.utils.create_warp_function(f)``)."""
    if value.kind == "sub" and value.items:
        value = value.items[0]
    return value.kind == "param" or (value.kind == "call" and value.data in _FUNCTION_MAKERS)

