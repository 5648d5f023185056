"""Facts per file: one ``ast`` walk of a Warp-using file, plain serialisable data out.

This is the first of the analyzer's three layers (facts -> program model -> rule queries,
see DESIGN.md). A file's facts say what its code *does* with Warp, without judging it:
which kernels it defines (where, with which decorator arguments, capturing what), which
functions it has (parameters and defaults, memoizing decorators, the calls they make and
where those calls sit: in a loop, behind a guard), which launches and loads it makes
(kernel and ``block_dim`` expressions), which options it changes, which caches it touches,
and whether it differentiates. Values are kept as small expression trees (``Value``) so the
program model can resolve them later through parameters, defaults and call sites of other
files: a file's facts never depend on another file, so an edit re-extracts one file.

Names are recorded as the dotted text written in the source, resolved through the file's
own imports (``wp.kernel`` -> ``warp.kernel``, ``from .k import make`` -> ``pkg.k.make``);
names bound by the file itself stay local (``make_scale``) and the model resolves them.
"""

from __future__ import annotations

import ast
import contextlib
import re
import sys
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterator

from warp_ct.analyzer.exports import Export, module_exports
from warp_ct.analyzer.skeleton import restore_ends, skeleton
from warp_ct.analyzer.syntax import absolute_module, parse_text

# ----------------------------------------------------------------------------- values


@dataclass(slots=True, unsafe_hash=True)  # not frozen: a frozen __init__ costs 7x
class Value:
    """An expression, as far as the analysis cares about it.

    kinds: ``const`` (data: the Python value), ``param`` (data: parameter name of the
    enclosing function), ``name`` (data: dotted name, import-resolved; a module global or
    an imported object), ``attr`` (``self.x``: data is "x"; items[0] is the base),
    ``sub`` (items: base, index), ``tuple`` (items), ``choice`` (items: the alternatives
    of ``a if c else b``; data: the condition's text), ``call`` (data: callee dotted name,
    items: positional arguments), ``method`` (``make(t).select(ids)``: data is the method's
    name, items[0] the receiver, a call, then the arguments as a call's), ``local`` (data:
    name; items: the values assigned to it in the function), ``format`` (an f-string with
    formatted parts: data is (the literal text before the first one, after the last one)),
    ``unknown``.
    """

    kind: str
    data: Any = None
    items: tuple["Value", ...] = ()

    def to_json(self) -> Any:
        return [self.kind, self.data if not isinstance(self.data, tuple) else list(self.data),
                [item.to_json() for item in self.items]]  # fmt: skip

    @classmethod
    def from_json(cls, data: Any) -> "Value":
        kind, payload, items = data
        return cls(kind, payload, tuple(cls.from_json(item) for item in items))


UNKNOWN = Value("unknown")
# ``tuple``'s data for what a comprehension makes: one item, the element each pass builds.
COMPREHENSION = "comprehension"
UNSET = Value("unset")  # a class-body annotation without a value (``step: wp.Kernel``): binds nothing
CHANGED = Value("changed")  # a value that moves each time its line runs (``x *= 0.95``)
_SELF = Value("self")
_SELF_ID = id(_SELF)  # ``self.x``'s key among a file's shared values (``_Extractor.shared``)
_NO_KWARGS: dict[str, Value] = {}  # shared by calls without keywords: facts are never mutated


def const(value: Any) -> Value:
    return Value("const", value)


# ----------------------------------------------------------------------------- facts


Span = tuple[int, int, int, int]  # lineno (1-based), col (bytes), end_lineno, end_col (bytes)


def span_of(node: ast.AST, numbers: dict[int, int] | None = None) -> Span:
    """``numbers``: one int object per value for the whole file (the parser makes a new
    one per node, and spans would keep them all: a fifth of a file's facts)."""
    try:  # expressions and statements have all four
        lineno, col, end_lineno, end_col = node.lineno, node.col_offset, node.end_lineno, node.end_col_offset  # type: ignore[attr-defined]
    except AttributeError:
        lineno, col, end_lineno, end_col = getattr(node, "lineno", 1), getattr(node, "col_offset", 0), None, None
    lineno = lineno or 1
    col = col or 0
    end_lineno = end_lineno or lineno
    if end_col is None:
        end_col = col
    if numbers is None:
        return (lineno, col, end_lineno, end_col)
    get = numbers.setdefault
    return (get(lineno, lineno), get(col, col), get(end_lineno, end_lineno), get(end_col, end_col))


@dataclass(slots=True)
class WithFact:
    """The context of a ``with`` item around a file's events (one object per item, shared by
    the events in its block): what the block is, as far as the file says. Whether it records
    a tape, suspends one or is neither is the model's answer (``Tapes.tape_context``): a
    context manager of another file, a name holding a ``wp.Tape``."""

    # "tape" (``wp.Tape()``), "call" (``callee(...)``), "value" (a name or attribute), "backward"
    # (not a ``with``: the body of a lambda handed to ``tape.record_func``, run by ``tape.backward()``)
    kind: str
    callee: str | None  # "call": dotted, import-resolved, as ``CallFact.callee``
    value: Value | None  # "value": the expression (``Value``)
    # The text names a tape (``with tape:``, ``with SGATape():``, ``with suspended_tape():``):
    # the file-level reading (``taped`` of the events), kept where the model knows no better.
    named: bool
    module: str  # the Python module and function it sits in (the model resolves it there)
    function: str | None


@dataclass(slots=True)
class CallFact:
    """A call of a non-Warp function (the call graph's edges)."""

    callee: str  # dotted callee as written, import-resolved ("self.setup", "pkg.k.make", "make")
    args: tuple[Value, ...]
    kwargs: dict[str, Value]
    span: Span
    order: int  # position among the events of its function (source order)
    loop_depth: int  # enclosing for/while loops (and comprehensions) inside the function
    guarded: bool  # under an ``if`` (may not run every time)
    cache_guarded: bool = False  # the ``if`` tests a cache or a changed value: runs only when needed
    passes_star: bool = False
    taped: bool = False  # inside a ``with wp.Tape()`` block: what it launches is recorded
    path: tuple[tuple[int, int], ...] = ()  # the if/match arms it sits in (see ``Branches``)  # *args / **kwargs: the parameter mapping is unknown
    # The ``with`` contexts around it, outermost first (``taped`` is the file's reading of
    # them; the model's is ``Program.taped``): a ``with suspended_tape():`` records nothing.
    withs: tuple[WithFact, ...] = ()


@dataclass(slots=True)
class KernelFact:
    name: str
    decorator: str  # "kernel" | "func" | "func_native" | ... (the warp decorator's last part)
    span: Span  # the ``def`` head
    decorator_span: Span
    function: str | None  # qualname of the function it is defined in (None: module/class scope)
    module: Value | None  # ``module=`` argument (None: absent)
    module_span: Span | None  # the ``module=...`` keyword, for fixes
    module_options: Value | None
    enable_backward: Value | None
    generic: bool  # some parameter is ``Any``-typed (instantiated per launch types)
    captures: tuple[str, ...]  # names read from the enclosing function's scope
    order: int  # event order in its function
    loop_depth: int
    guarded: bool  # defined under an ``if`` inside the function (a cache or config guard)
    cache_guarded: bool  # the guard tests a cache/attribute (``if key not in cache``, ``is None``)
    path: tuple[tuple[int, int], ...] = ()
    keywords: tuple[str | None, ...] = ()  # the decorator's keyword names (None: ``**spread``)
    options_span: Span | None = None  # the ``module_options=...`` keyword, for fixes
    # Defined in a ``with pytest.raises(...)`` / ``with self.assertRaises(...)`` block of its
    # function (or of the module body): a test that expects the definition to raise.
    expects_error: bool = False
    # The captures the body calls (``fn(x)``): Warp functions, whose part of the kernel's
    # hash is their code, not a value that changes from one definition to the next.
    called_captures: tuple[str, ...] = ()
    # Defined in a class body (``@staticmethod @wp.kernel def k`` in ``class Mesh``): the
    # class's qualname; read as ``Mesh.k``, ``self.k`` or ``cls.k``, also from subclasses.
    owner: str | None = None


@dataclass(slots=True)
class LaunchFact:
    """``wp.launch`` / ``wp.launch_tiled`` and the calls that load a module."""

    kind: str  # "launch", "launch_tiled", "force_load", "load_module", "block_size_query", "kernel_query"
    kernel: Value  # the kernel expression (UNKNOWN for force_load/load_module without a module)
    target: Value | None  # load_module's module argument / force_load's modules
    block_dim: Value | None
    dtypes: tuple[str, ...]  # source text of the inputs
    adjoint: Value | None
    device: Value | None
    max_workers: Value | None
    span: Span
    function: str | None
    order: int
    loop_depth: int
    guarded: bool
    taped: bool = False  # recorded on a ``wp.Tape`` (its adjoint may run)
    inputs: tuple[Value, ...] = ()  # the ``inputs=[...]`` values (their dtypes instantiate generic kernels)
    path: tuple[tuple[int, int], ...] = ()
    kernel_span: Span | None = None  # the kernel expression, for messages
    inputs_param: str | None = None  # ``inputs=inputs``: the parameter of ``function`` the list comes from
    withs: tuple[WithFact, ...] = ()  # the ``with`` contexts around it (``CallFact.withs``)
    # The ``outputs=[...]`` values: a generic kernel's ``Any`` outputs are made concrete from
    # them as its inputs are (``_convert(src: wp.array[Any], dst: wp.array[Any])`` launched
    # float64 -> float32 and float32 -> float32 is two instantiations).
    outputs: tuple[Value, ...] = ()


@dataclass(slots=True)
class FemCallFact:
    """``fem.integrate(...)`` / ``fem.interpolate(...)`` under any alias of ``warp.fem``: warp.fem
    builds a kernel (a module of its own) for the user's integrand, with the call's
    ``kernel_options`` over the integrand module's options."""

    kind: str  # "integrate" | "interpolate"
    span: Span  # the callee (``fem.integrate``): where a finding about the call goes
    function: str | None
    taped: bool  # inside a ``with wp.Tape()`` block
    # ``kernel_options``: "absent", "literal" (a dict literal that does not name
    # ``enable_backward``), or "set" (names it, or cannot tell: a variable, a call, ``**spread``)
    options: str
    # Where the fix's text goes (a zero-width span): after the last argument ("absent": a new
    # ``kernel_options=`` argument), after the dict's last item, or inside ``{}`` (``empty``).
    insert: Span | None
    empty_options: bool = False
    grad_argument: bool = False  # an argument makes an array with ``requires_grad=True``
    integrand: str | None = None  # the integrand as written (dotted, import-resolved): the first argument
    # ``fields={...}``: the (key, value) items of its dict literal (key None: not a string
    # constant; None: no dict literal, or ``**`` in it); a test field (``fem.make_test(...)``)
    # among them makes warp.fem's dispatch kernel too.
    fields: tuple[tuple[str | None, Value], ...] | None = None
    assembly: Value | None = None  # ``assembly=`` (None: not passed)
    withs: tuple[WithFact, ...] = ()  # the ``with`` contexts around it (``CallFact.withs``)


@dataclass(slots=True)
class OptionFact:
    """An option change: ``wp.config.X = v``, ``wp.set_module_options({...}, module=...)``,
    ``wp.get_module(m).options.update/[k] = ...``, ``setattr(wp.config, "X", v)``."""

    kind: str  # "config" | "module_options"
    options: dict[str, Value]  # option name -> value (``"*"``: not a literal dict)
    target: Value | None  # module_options: the ``module=`` value (None: the calling module)
    span: Span
    function: str | None
    order: int
    loop_depth: int
    guarded: bool
    via_get_module: bool = False  # ``set_module_options(..., module=wp.get_module(...))``
    path: tuple[tuple[int, int], ...] = ()
    # In a ``finally:`` block, or after ``wp.get_module_options()`` in the same function:
    # putting saved options back, not a change of its own.
    restores: bool = False
    # ``wp.set_module_options(...)`` itself (not ``get_module(m).options`` updates), and
    # whether it passes ``**keywords`` (its target cannot be told then).
    set_by_call: bool = False
    spread: bool = False


@dataclass(slots=True)
class CacheFact:
    kind: str  # "clear_kernel_cache", "clear_lto_cache", "rmtree", "atexit_rmtree", "cache_kernels_off", "temp_cache_dir", "cuda_cache_disable"
    target: Value | None
    span: Span
    function: str | None
    order: int
    guarded: bool


@dataclass(slots=True)
class FunctionFact:
    qualname: str  # "Pipeline.run", "make_scale", "outer.<locals>.inner"
    name: str
    span: Span  # the ``def`` head
    class_name: str | None  # the class for methods
    parent: str | None  # enclosing function's qualname for nested functions
    params: tuple[str, ...]
    defaults: dict[str, Value]  # parameter -> default value
    default_spans: dict[str, Span]
    decorators: tuple[str, ...]  # dotted, import-resolved
    memoizes: bool  # keeps its results: a memo decorator or an inline dict cache
    is_kernel: bool  # the function itself is a Warp kernel/func (its body is Warp code)
    calls: list[CallFact] = field(default_factory=list)
    locals: dict[str, list[Value]] = field(default_factory=dict)  # local name -> assigned values
    self_attrs: dict[str, list[Value]] = field(default_factory=dict)  # self.x = ... in this method
    loop_tables: dict[str, Value] = field(default_factory=dict)  # for-target name -> element of iterated value
    returns: list[Value] = field(default_factory=list)
    loops: list[tuple[int, int]] = field(default_factory=list)  # (first, last line) of each for/while in its body
    differentiates: bool = False  # Tape / .backward() / requires_grad=True / adjoint launches
    # The keywords its decorators are called with (``@unique_kernel(enable_backward=False)``;
    # "**" for a spread): what a project's own kernel decorator passes on to ``wp.kernel``.
    decorator_keywords: tuple[str, ...] = ()
    # Makes an array or tensor with ``requires_grad=`` something other than False (``True``, a
    # parameter, ``x.requires_grad``): code that hands gradients on (what WCT010 reads, not words).
    asks_grad: bool = False
    # Sets Warp's runtime tape to None (``runtime.tape = None``, ``tape, runtime.tape =
    # runtime.tape, None``) before setting it to anything else, outside ``finally:`` and
    # handlers: a context manager of this body suspends the active tape (``suspended_tape()``).
    suspends_tape: bool = False


@dataclass(slots=True)
class FileFacts:
    path: str
    module: str
    is_package: bool
    aliases: dict[str, str]  # local name -> dotted qualified name (from imports)
    imports: list[tuple[str, int, bool]]  # (absolute module, lineno, at module level)
    globals: dict[str, list[Value]]  # module-level name -> values assigned
    functions: dict[str, FunctionFact]
    classes: dict[str, tuple[str, ...]]  # class qualname -> base names (dotted)
    kernels: list[KernelFact]
    launches: list[LaunchFact]
    options: list[OptionFact]
    caches: list[CacheFact]
    overloads: list[tuple[str, Span, str | None]]  # (kernel dotted name, span, function)
    module_calls: list[CallFact]  # calls at module level (run at import)
    main_calls: list[CallFact]  # calls under ``if __name__ == "__main__":``
    differentiates: bool
    has_main_guard: bool
    atexit_targets: list[tuple[str, Span]] = field(default_factory=list)  # atexit.register(f): f
    cache_dir_names: list[str] = field(default_factory=list)  # names/attrs assigned to kernel_cache_dir
    # ``wp.sim.collide = collide``: a project function installed in place of a Warp API
    patches: list[tuple[str, Value]] = field(default_factory=list)
    exports: dict[str, Export] | None = None  # top-level name -> how it is bound (exports.py)
    # ``@wp.struct`` classes joining the file's module: (name, function, order in it, line)
    structs: list[tuple[str, str | None, int, int]] = field(default_factory=list)
    syntax_error: str | None = None  # "could not parse: ..." when the text is not Python
    syntax_error_at: tuple[int, int] = (0, 0)  # its 0-based line and column
    method_aliases: dict[str, str] = field(default_factory=dict)  # "C.__call__" -> "C.forward" (``__call__ = forward``)
    # Class qualname -> its fields in order, as a NamedTuple or a dataclass declares them
    # (``step: wp.Kernel = integrate``): (name, default; UNKNOWN unless a name).
    class_fields: dict[str, list[tuple[str, Value]]] = field(default_factory=dict)
    # ``wp.kernel(fn, module="unique", **kwargs)`` inside a function: a project's own kernel
    # decorator. (function qualname, span, ``module=`` value or None, whether the call sets
    # the backward option itself: ``enable_backward=`` or ``module_options=``, whether it
    # passes ``**keywords`` on).
    kernel_calls: list[tuple[str, Span, Value | None, bool, bool]] = field(default_factory=list)
    module_loops: list[tuple[int, int]] = field(default_factory=list)  # ``loops`` of the module body
    first_pass_branches: set[int] = field(default_factory=set)  # ``if i == 0:`` / ``if first:``: taken on a loop's first pass
    # Where a fix puts a module-wide statement after the imports: the last line of the last
    # import of the module body before its first ``def``/``class`` (0: none), and the name
    # the module body's last ``import warp [as x]`` binds (None: no such import).
    imports_end_line: int = 0
    warp_import_name: str | None = None
    fem_calls: list[FemCallFact] = field(default_factory=list)  # ``fem.integrate`` / ``fem.interpolate`` calls
    # Warp names the file gets from a ``*`` import of a project module (``wp`` from a module
    # that does ``import warp as wp``): (name, Warp name), read as the file's own aliases.
    inherited: tuple[tuple[str, str], ...] = ()
    # Functions decorated with something that may be a project's own kernel decorator
    # (``@simdata.kernel(module="unique")``, ``@kernel`` bound to ``functools.partial(wp.kernel,
    # ...)``): the kernel each would be, and its candidate decorators innermost first, as
    # (dotted name, the decorator call's value or None). The model keeps those whose
    # decorator makes kernels (``Kernels._add_decorated_kernels``).
    decorated: list[tuple[KernelFact, tuple[tuple[str, Value | None], ...]]] = field(default_factory=list)
    # ``wp.Kernel(func=f, ...)`` calls: the kernel each makes where it runs (``name`` empty: the
    # model names it after the function ``f`` is), and the call's value (its ``func`` argument).
    kernel_objects: list[tuple[KernelFact, Value]] = field(default_factory=list)
    # Makes an array or tensor with ``requires_grad=True`` (a literal): it asks for gradients.
    requires_grad: bool = False
    # Calls Warp's autodiff checkers (``wp.autograd.gradcheck`` / ``jacobian``): they record
    # and run the adjoints of whatever function they are handed, code the model does not follow.
    warp_autograd: bool = False
    # Writes of an attribute on an object other than ``self`` (``rc._megakernel = build(m,
    # rc)``, ``model.grid_op = Model.grid_op_noslip``), the keywords of a namespace built
    # with them (``SimpleNamespace(step=step)``), and keywords of a private name (``_name``,
    # by convention written only by its package) in any call (``Context(_megakernel=None)``,
    # ``replace(rc, _megakernel=k)``): attribute -> (the function writing it or None, the value).
    attr_writes: dict[str, list[tuple[str | None, Value]]] = field(default_factory=dict)


# ----------------------------------------------------------------------------- extraction


WARP_DECORATORS = {"kernel", "func", "func_native", "func_grad", "func_replay", "struct", "overload"}
CONFIG_PREFIX = "warp.config."
_MEMO_DECORATORS = {
    "functools.cache", "functools.lru_cache", "functools.cached_property", "cachetools.cached",
    "cachetools.func.lru_cache", "cachetools.func.ttl_cache", "methodtools.lru_cache",
}  # fmt: skip
_LOAD_KINDS = {
    "warp.launch": "launch", "warp.launch_tiled": "launch_tiled", "warp.force_load": "force_load",
    "warp.load_module": "load_module", "warp.get_suggested_block_size": "block_size_query",
}  # fmt: skip


# Classes whose objects hold the keywords they are built with as attributes, and nothing else.
NAMESPACE_CLASSES = frozenset({"types.SimpleNamespace", "argparse.Namespace"})

# Class-body assignments whose value the facts keep (``class_fields``).
_CLASS_FIELD_VALUES = (ast.Name, ast.Attribute, ast.Constant, ast.Call)

# warp.fem's calls that build a kernel for the user's integrand with the call's ``kernel_options``.
FEM_CALLS = frozenset({"warp.fem.integrate", "warp.fem.interpolate"})

_RAISES_METHODS = frozenset({"assertRaises", "assertRaisesRegex", "assertRaisesRegexp"})


def expects_error(context: ast.AST, aliases: dict[str, str]) -> bool:
    """A ``with`` item whose block raises on purpose: ``pytest.raises(...)`` (``match=`` or
    not, ``from pytest import raises`` too) or a unittest ``assertRaises``/``assertRaisesRegex``
    used as a context manager, whatever the object (``self``, ``test`` in Warp's own tests)."""
    if context.__class__ is not ast.Call:
        return False
    func = context.func  # type: ignore[attr-defined]
    if func.__class__ is ast.Attribute:
        if func.attr in _RAISES_METHODS:
            return True
        return func.attr == "raises" and func.value.__class__ is ast.Name and aliases.get(func.value.id, func.value.id) == "pytest"
    return func.__class__ is ast.Name and aliases.get(func.id) == "pytest.raises"


# unittest's and pytest's teardown hooks: they run after the test and undo its setup.
TEARDOWN_NAMES = frozenset({
    "tearDown", "tearDownClass", "tearDownModule", "asyncTearDown",
    "teardown_method", "teardown_class", "teardown_module", "teardown_function", "teardown",
})


class _Scope:
    """The function (or module) whose events are being collected."""

    def __init__(self, qualname: str | None, fact: FunctionFact | None, params: tuple[str, ...]) -> None:
        self.qualname = qualname
        self.fact = fact
        self.params = set(params)
        self.order = 0
        self.loop_depth = 0
        self.guards: list[ast.If] = []
        self.cache_guards = 0  # how many of the guards test a cache or a changed value
        self.bound: set[str] = set(params)
        self.tape_depth = 0  # inside ``with wp.Tape():`` / ``with tape:`` blocks
        self.withs: tuple[WithFact, ...] = ()  # the ``with`` contexts around (``CallFact.withs``)
        self.runtime_tape_set = False  # the body set Warp's runtime tape (``FunctionFact.suspends_tape``)
        self.raises_depth = 0  # inside ``with pytest.raises(...):`` / ``with self.assertRaises(...):`` blocks
        # Containers written by key (``name[k] = v``, ``name.setdefault``): the name, or None
        # for an attribute (``self._cache[k] = v``); and ``global``/``nonlocal`` statements.
        self.container_writes: list[str | None] = []
        self.declares_outer = False
        # The if/match arms around the current statement: (branch id, arm). Two events whose
        # paths hold the same branch with different arms never run in one pass.
        self.path: list[tuple[int, int]] = []
        self._local_reads: dict[str, Value] = {}
        # The loops around the current statement: (locals their bodies assign, how many
        # values each of those held when the loop began).
        self.loops: list[tuple[frozenset[str], dict[str, int]]] = []
        self._loop_reads: dict[str, Value] = {}
        self.names_read_later: set[str] = set()  # locals the model looks up by name (see stmt_FunctionDef)
        self.finally_depth = 0
        self.handler_depth = 0  # inside ``except:`` blocks (they may not run)
        self.saved_options = False  # ``wp.get_module_options()`` was called so far
        # A test's teardown (``tearDown``, ``teardown_method``...) puts back what its setup saved.
        self.tearing_down = qualname is not None and qualname.rpartition(".")[2] in TEARDOWN_NAMES

    @property
    def restoring(self) -> bool:
        return self.finally_depth > 0 or self.saved_options or self.tearing_down

    def next_order(self) -> int:
        self.order += 1
        return self.order

    def enter_loop(self, body: list[ast.stmt]) -> None:
        names = _assigned_names(body) if self.fact is not None else frozenset()
        locals_ = self.fact.locals if self.fact is not None else {}
        self.loops.append((names, {name: len(locals_.get(name, ())) for name in names}))

    def _assigned_later_in_loop(self, name: str, count: int) -> bool:
        """Some loop around the read assigns ``name`` in its body, not yet in this pass."""
        for names, at_entry in self.loops:
            if name in names and at_entry[name] == count:
                return True
        return False

    def local_value(self, name: str) -> Value:
        """The local ``name`` as read here: the values assigned to it so far. Reads between
        two assignments share one value (assignments only append)."""
        assigned = self.fact.locals[name]  # type: ignore[union-attr]
        if self.loops and self._assigned_later_in_loop(name, len(assigned)):
            # ``for ...: step(radius); radius += 1``: the next pass reads what this one assigns.
            known = self._loop_reads.get(name)
            if known is None or len(known.items) != len(assigned) + 1:
                known = self._loop_reads[name] = Value("local", name, (*assigned, CHANGED))
            return known
        known = self._local_reads.get(name)
        if known is not None and len(known.items) == len(assigned):
            return known
        value = self._local_reads[name] = Value("local", name, tuple(assigned))
        return value


# The one ``syntax_error`` of facts whose text may parse (``extract`` ran out of stack).
NESTED_TOO_DEEPLY = "could not parse: the file is nested too deeply"


def parse_source(text: str, path: str) -> tuple[ast.Module | None, tuple[str, int, int] | None]:
    """The file's tree, or None and ("could not parse: <why>", line, column) (0-based)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings are the user's compiler's to show
            return parse_text(text, path), None
    except SyntaxError as error:
        line, col = max((error.lineno or 1) - 1, 0), max((error.offset or 1) - 1, 0)
        return None, (f"could not parse: {error.msg}{_newer_syntax_hint(text, line)}", line, col)
    except (ValueError, RecursionError, MemoryError) as exc:
        message = "the file is nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        return None, (f"could not parse: {message}", 0, 0)


# Statements that only Python 3.12 reads (PEP 695): ``type X = ...``, ``def f[T](...)``, ``class C[T]:``.
_PEP695_RE = re.compile(r"\s*(?:type\s+[A-Za-z_]\w*\s*[\[=]|(?:async\s+)?def\s+[A-Za-z_]\w*\s*\[|class\s+[A-Za-z_]\w*\s*\[)")


def _newer_syntax_hint(text: str, line: int) -> str:
    """Why a file that parses on a newer Python fails here, when its failing line says so."""
    if sys.version_info >= (3, 12):
        return ""
    lines = text.splitlines()
    if line < len(lines) and _PEP695_RE.match(lines[line]):
        running = ".".join(map(str, sys.version_info[:2]))
        return f" (Python 3.12 syntax, which this Python {running} cannot read: run warp-ct with the project's Python)"
    return ""


def parse_for_facts(text: str, path: str) -> tuple[ast.Module | None, tuple[str, int, int] | None, frozenset[int]]:
    """``parse_source`` of the text with its module-level Warp function bodies left out
    (``skeleton``), and the ``def`` lines of the definitions left out; the whole text when
    nothing was, or when what is left does not parse (the error is then the text's own)."""
    cut = skeleton(text)
    if cut is not None:
        tree, _problem = parse_source(cut[0], path)
        if tree is not None and len(restore_ends(tree, cut[1])) == len(cut[1]):
            return tree, None, frozenset(cut[1])
    return (*parse_source(text, path), frozenset())


def extract(path: str, text: str, module: str, is_package: bool, tree: ast.Module | None = None,
            problem: tuple[str, int, int] | None = None, blanked: frozenset[int] = frozenset(),
            inherited: tuple[tuple[str, str], ...] = ()) -> FileFacts:  # fmt: skip
    """The facts of one file (a file that does not parse gets empty facts and its error).
    ``tree``/``problem``: what ``parse_source`` (or ``parse_for_facts``, with ``blanked``)
    gave for ``text``, when the caller parsed it; ``inherited``: the Warp names its ``*``
    imports bind (``FileFacts.inherited``), read before its own imports, which rebind them."""
    facts = FileFacts(path, module, is_package, dict(inherited), [], {}, {}, {}, [], [], [], [], [], [], [], False, False)
    facts.inherited = inherited
    if tree is None and problem is None:
        tree, problem = parse_source(text, path)
    if tree is None:
        message, line, col = problem or ("could not parse", 0, 0)
        facts.syntax_error, facts.syntax_error_at = message, (line, col)
        return facts
    facts.exports = module_exports(tree, module, is_package)
    facts.imports_end_line, facts.warp_import_name = _import_block(tree)
    extractor = _Extractor(facts, blanked)
    try:
        extractor.run(tree)
    except RecursionError:
        facts.syntax_error = NESTED_TOO_DEEPLY  # the tree parsed: the tree rules may still read it
    except _BodyNeeded:  # a blanked definition is no Warp function after all: read it whole
        return extract(path, text, module, is_package, inherited=inherited)
    # Most files have none of these: one shared empty container each, not one per file.
    if not facts.method_aliases:
        facts.method_aliases = _EMPTY_TABLE
    if not facts.class_fields:
        facts.class_fields = _EMPTY_TABLE  # type: ignore[assignment]
    if not facts.kernel_calls:
        facts.kernel_calls = ()  # type: ignore[assignment]
    if not facts.fem_calls:
        facts.fem_calls = ()  # type: ignore[assignment]
    if not facts.decorated:
        facts.decorated = ()  # type: ignore[assignment]
    if not facts.kernel_objects:
        facts.kernel_objects = ()  # type: ignore[assignment]
    if not facts.attr_writes:
        facts.attr_writes = _EMPTY_TABLE  # type: ignore[assignment]
    if not facts.module_loops:
        facts.module_loops = ()  # type: ignore[assignment]
    if not facts.first_pass_branches:
        facts.first_pass_branches = _NO_BRANCHES  # type: ignore[assignment]
    return facts


def _import_block(tree: ast.Module) -> tuple[int, str | None]:
    """``FileFacts.imports_end_line`` and ``warp_import_name`` of a module."""
    end, name, header = 0, None, True
    for stmt in tree.body:
        cls = stmt.__class__
        if cls is ast.Import:
            for alias in stmt.names:  # type: ignore[attr-defined]
                if alias.name == "warp":
                    name = alias.asname or "warp"
        if header:
            if cls is ast.FunctionDef or cls is ast.AsyncFunctionDef or cls is ast.ClassDef:
                header = False
            elif cls is ast.Import or cls is ast.ImportFrom:
                end = stmt.end_lineno or stmt.lineno
    return end, name


class _BodyNeeded(Exception):
    """A definition whose body ``skeleton`` left out turned out to need it."""


class _Extractor:
    def __init__(self, facts: FileFacts, blanked: frozenset[int] = frozenset()) -> None:
        self.facts = facts
        self.blanked = blanked  # ``def`` lines whose bodies the tree lacks (``parse_for_facts``)
        self.scopes: list[_Scope] = [_Scope(None, None, ())]
        self._branch_ids: dict[int, int] = {}  # id(if/match node) -> branch id within the file
        self.class_stack: list[str] = []
        self.in_main = False
        self.in_decorator = False  # visiting a definition's decorators
        # One object per distinct value, dotted name and span number in the file: most of a
        # file's values repeat (the same names, parameters, numbers, ``self.x``, ``x[i]``).
        self._values: dict[tuple, Value] = {}
        self._names: dict[str, str] = {}
        self._numbers: dict[int, int] = {}
        self._call_values: dict[int, Value] = {}  # id(ast.Call) -> its value (the tree outlives the walk)
        self.any_aliases: set[str] = set()  # module-level ``vec3 = Any``: kernels typed with them are generic

    def shared(self, kind: str, data: Any = None, items: tuple[Value, ...] = ()) -> Value:
        """``Value(kind, data, items)``, one object per distinct value in the file. The items
        are shared already, so their identities stand for them in the key; a leaf's key holds
        its data's type, which keeps ``1``, ``1.0`` and ``True`` apart (a composite's data is
        a name or None)."""
        key = (kind, data, *map(id, items)) if items else (kind, data.__class__, data)
        try:
            return self._values[key]
        except KeyError:
            value = self._values[key] = Value(kind, data, items)
            return value
        except TypeError:  # an unhashable constant cannot be shared
            return Value(kind, data, items)

    # ------------------------------------------------------------------ names
    def dotted(self, node: ast.AST | None) -> str | None:
        """``wp.config.x`` -> "warp.config.x" through the file's imports; None otherwise
        (``wp.get_module(...).options``, ``x[0].y``: not a name)."""
        cls = node.__class__
        if cls is ast.Name:
            base = node.id  # type: ignore[union-attr]
            return self.facts.aliases.get(base, base)
        if cls is not ast.Attribute:
            return None
        parts = [node.attr]  # type: ignore[union-attr]
        node = node.value  # type: ignore[union-attr]
        while node.__class__ is ast.Attribute:
            parts.append(node.attr)  # type: ignore[union-attr]
            node = node.value  # type: ignore[union-attr]
        if node.__class__ is not ast.Name:
            return None
        base = node.id  # type: ignore[union-attr]
        parts.append(self.facts.aliases.get(base, base))
        parts.reverse()
        dotted = ".".join(parts)
        return self._names.setdefault(dotted, dotted)

    def warp_name(self, node: ast.AST | None) -> str | None:
        return _as_warp_name(self.dotted(node))

    # ------------------------------------------------------------------ values
    def value(self, node: ast.AST | None) -> Value:
        # ``shared`` is written out for the leaves (names, constants): a fifth of the calls.
        kind = node.__class__
        if kind is ast.Name:
            name = node.id  # type: ignore[union-attr]
            scope = self.scopes[-1]
            if name in scope.params:
                fact = scope.fact
                if fact is not None and name in fact.locals:
                    # Rebound in the body (``if g is None: g = wp.empty(...)``): what the caller
                    # passed, or what the body assigned.
                    assigned = scope.local_value(name)
                    return self.shared("local", name, (self.shared("param", name), *assigned.items))
                key = ("param", str, name)
            else:
                fact = scope.fact
                if fact is not None:
                    if name in fact.loop_tables:
                        return fact.loop_tables[name]
                    if name in fact.locals:
                        return scope.local_value(name)
                    if fact.parent is not None:
                        # A nested function's free name may be a local of a function around it
                        # (``_bd = 256`` read by a closure): keep it there for the model.
                        for outer in self.scopes:
                            outer.names_read_later.add(name)
                name = self.facts.aliases.get(name, name)
                key = ("name", str, name)
            try:
                return self._values[key]
            except KeyError:
                value = self._values[key] = Value(key[0], name)
                return value
        if kind is ast.Constant:
            data = node.value  # type: ignore[union-attr]
            key = ("const", data.__class__, data)
            try:
                return self._values[key]
            except KeyError:
                value = self._values[key] = Value("const", data)
                return value
            except TypeError:  # an unhashable constant cannot be shared
                return Value("const", data)
        if kind is ast.Attribute:
            base = node.value  # type: ignore[union-attr]
            if base.__class__ is ast.Name and base.id in ("self", "cls"):
                key = ("attr", node.attr, _SELF_ID)  # type: ignore[union-attr]
                try:
                    return self._values[key]
                except KeyError:
                    value = self._values[key] = Value("attr", key[1], (_SELF,))
                    return value
            dotted = self.dotted(node)
            if dotted is not None:
                key = ("name", str, dotted)
                try:
                    return self._values[key]
                except KeyError:
                    value = self._values[key] = Value("name", dotted)
                    return value
            return self.shared("attr", node.attr, (self.value(base),))  # type: ignore[union-attr]
        if kind is ast.Call:
            # A call's arguments were valued when the walk met it (``call``), and an outer
            # call values it again as its argument: once per node.
            known = self._call_values.get(id(node))
            if known is not None:
                return known
            callee = self.dotted(node.func) or ""  # type: ignore[union-attr]
            if not callee:
                looked_up = self.table_get(node) or self.applied_kernel(node) or self.method_of_result(node)  # type: ignore[arg-type]
                if looked_up is not None:
                    self._call_values[id(node)] = looked_up
                    return looked_up
            # Valued again, not taken from ``call``'s: the values that are not shared (``sub``,
            # ``binop``, ``choice``) are new objects here, and the model's memos key by identity.
            value_of = self.value
            keywords = [(k.arg, value_of(k.value)) for k in node.keywords if k.arg]  # type: ignore[union-attr]
            arguments = [value_of(a) for a in node.args]  # type: ignore[union-attr]
            shared = self.shared
            value = self._call_values[id(node)] = shared(
                "call", callee, (*arguments, *[shared("kw", name, (item,)) for name, item in keywords])
            )
            return value
        if node is None:
            return UNKNOWN
        if kind is ast.Tuple or kind is ast.List:
            value_of = self.value
            return self.shared("tuple", None, tuple([value_of(e) for e in node.elts]))  # type: ignore[attr-defined]
        if kind is ast.Subscript:
            return Value("sub", None, (self.value(node.value), self.value(node.slice)))  # type: ignore[attr-defined]
        if kind is ast.BinOp:
            return Value("binop", type(node.op).__name__, (self.value(node.left), self.value(node.right)))  # type: ignore[attr-defined]
        if kind is ast.IfExp:
            return Value("choice", _text(node.test), (self.value(node.body), self.value(node.orelse)))  # type: ignore[attr-defined]
        if kind is ast.BoolOp:  # ``args.cache or scratch.name``: one of its operands
            return Value("choice", None, tuple(self.value(v) for v in node.values))  # type: ignore[attr-defined]
        if kind is ast.ListComp or kind is ast.SetComp or kind is ast.GeneratorExp or kind is ast.DictComp:
            return self.comprehension(node)  # type: ignore[arg-type]
        if kind is ast.Dict:
            keys = tuple(self.value(k) if k is not None else UNKNOWN for k in node.keys)  # type: ignore[attr-defined]
            values = tuple(self.value(v) for v in node.values)  # type: ignore[attr-defined]
            return self.shared("dict", None, keys + values)
        if kind is ast.JoinedStr:
            return self.formatted(node)  # type: ignore[arg-type]
        if kind is ast.UnaryOp and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):  # type: ignore[attr-defined]
            if isinstance(node.operand.value, (int, float)):  # type: ignore[attr-defined]
                return self.shared("const", -node.operand.value)  # type: ignore[attr-defined]
        return UNKNOWN

    def formatted(self, node: ast.JoinedStr) -> Value:
        """An f-string: the text itself when nothing is formatted into it, else ``format``
        with its literal ends, enough to tell a name it cannot be (``f"narrow_phase_{suffix}"``
        never names the module ``pkg.kernels``)."""
        parts = node.values
        if all(part.__class__ is ast.Constant for part in parts):
            return self.shared("const", "".join(part.value for part in parts))  # type: ignore[attr-defined]
        prefix = parts[0].value if parts[0].__class__ is ast.Constant else ""  # type: ignore[attr-defined]
        suffix = parts[-1].value if parts[-1].__class__ is ast.Constant else ""  # type: ignore[attr-defined]
        return self.shared("format", (prefix, suffix))

    def comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> Value:
        """``[Linear(a, b) for a, b in ...]``: a container of what the element builds;
        ``{kind: make(kind) for kind in groups}``: a table of what it builds."""
        with self.comprehension_scope(node):
            if node.__class__ is ast.DictComp:
                return self.shared("dict", None, (self.value(node.key), self.value(node.value)))  # type: ignore[union-attr]
            # Marked: unpacking it (``a, b = (wp.zeros(n) for _ in range(2))``) binds elements.
            return self.shared("tuple", COMPREHENSION, (self.value(node.elt),))  # type: ignore[union-attr]

    @contextlib.contextmanager
    def comprehension_scope(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> Iterator[None]:
        """Inside a function, a comprehension reads each loop variable as an element of what
        its ``for`` iterates (``for dims, kernel in ROWS``, ``{s: make(s) for s in (-1.0, 1.0)}``),
        as a ``for`` statement's body does; the names are the comprehension's own, so the
        function's are restored after."""
        fact = self.scopes[-1].fact
        shadowed: dict[str, Value | None] = {}
        if fact is not None:
            for generator in node.generators:
                iterated = self.value(generator.iter)
                bound: dict[str, Any] = {}
                _bind_targets(generator.target, Value("elem", None, (iterated,)), bound, single=True)
                for name, element in bound.items():
                    shadowed.setdefault(name, fact.loop_tables.get(name))
                    fact.loop_tables[name] = element
        try:
            yield
        finally:
            for name, previous in shadowed.items():
                if previous is None:
                    del fact.loop_tables[name]  # type: ignore[union-attr]
                else:
                    fact.loop_tables[name] = previous  # type: ignore[union-attr]

    def table_get(self, node: ast.Call) -> Value | None:
        """``tables[dtype].get(order)`` / ``TABLE.get(dtype, {}).get(order)``: ``.get`` on an
        expression that is no name (an entry of a table, what a lookup returns) reads an
        entry of what it is called on, or its default (None without one). None for any other
        call (a name's ``.get`` stays a call: the name may be an object with a ``get``)."""
        func = node.func
        if func.__class__ is not ast.Attribute or func.attr != "get" or node.keywords:  # type: ignore[attr-defined]
            return None
        base = func.value  # type: ignore[attr-defined]
        if base.__class__ not in (ast.Subscript, ast.Call) or not 1 <= len(node.args) <= 2:
            return None
        if any(a.__class__ is ast.Starred for a in node.args):
            return None
        default = self.value(node.args[1]) if len(node.args) == 2 else self.shared("const", None)
        return Value("choice", None, (Value("sub", None, (self.value(base), self.value(node.args[0]))), default))

    def method_of_result(self, node: ast.Call) -> Value | None:
        """``make(dtype).select(ids)``: a method called on what a call returns, valued as
        ``method`` (data: the method's name; items: the receiver, then the arguments as a
        call's). None for any other call (``table[k](x)``, ``f()()``: no receiver to follow)."""
        func = node.func
        if func.__class__ is not ast.Attribute or func.value.__class__ is not ast.Call:  # type: ignore[attr-defined]
            return None
        value_of = self.value
        shared = self.shared
        receiver = value_of(func.value)  # type: ignore[attr-defined]
        keywords = [shared("kw", k.arg, (value_of(k.value),)) for k in node.keywords if k.arg]
        arguments = [value_of(a) for a in node.args]
        return shared("method", func.attr, (receiver, *arguments, *keywords))  # type: ignore[attr-defined]

    def applied_kernel(self, node: ast.Call) -> Value | None:
        """``wp.kernel(enable_backward=False, module="unique")(fn)``: the kernel ``fn`` makes,
        valued as ``wp.kernel(fn, enable_backward=False, module="unique")`` is. None for any
        other call."""
        inner = node.func
        if inner.__class__ is not ast.Call or inner.args or len(node.args) != 1 or node.keywords:  # type: ignore[attr-defined]
            return None
        if node.args[0].__class__ is ast.Starred or self.warp_name(inner.func) != "warp.kernel":  # type: ignore[attr-defined]
            return None
        shared = self.shared
        keywords = [shared("kw", k.arg, (self.value(k.value),)) for k in inner.keywords if k.arg]  # type: ignore[attr-defined]
        return shared("call", "warp.kernel", (self.value(node.args[0]), *keywords))

    # ------------------------------------------------------------------ walk
    def run(self, tree: ast.Module) -> None:
        self.block(tree.body)

    def block(self, body: list[ast.stmt]) -> None:
        scope = self.scopes[-1]
        depth = len(scope.path)
        for stmt in body:
            self.stmt(stmt)
            # After ``if c: ...; return``, the rest of the block runs only on the other arm.
            if stmt.__class__ is not ast.If:
                continue
            branch = self._branch_ids.get(id(stmt))
            if branch is not None:
                if _terminates(stmt.body) and not _terminates(stmt.orelse):
                    scope.path.append((branch, 1))
                elif _terminates(stmt.orelse) and not _terminates(stmt.body):
                    scope.path.append((branch, 0))
        del scope.path[depth:]

    def stmt(self, node: ast.stmt) -> None:
        cls = node.__class__
        method = _STMT_METHODS.get(cls)
        if method is None:
            method = _STMT_METHODS[cls] = getattr(_Extractor, "stmt_" + cls.__name__, _Extractor.generic)
        method(self, node)

    def stmt_Pass(self, node: ast.stmt) -> None:
        """No children: nothing to see (``generic`` would look for them)."""

    stmt_Break = stmt_Continue = stmt_Pass

    def generic(self, node: ast.AST) -> None:
        for child in _children(node):
            if isinstance(child, ast.stmt):
                self.stmt(child)
            elif isinstance(child, ast.expr):
                self.expr(child)
            else:  # match_case, except handlers, with items: they hold statements too
                self.generic(child)

    def expr(self, node: ast.AST) -> None:
        """Visit an expression in evaluation order: a call's arguments before the call,
        comprehensions as loops, lambdas not at all (they run later, if ever)."""
        kind = node.__class__
        if kind is ast.Call:
            # Most children are names and constants: skip them here rather than in a call.
            expr, leaves = self.expr, _LEAVES
            func = node.func  # type: ignore[attr-defined]
            if func.__class__ is ast.Attribute:
                base = func.value
                while base.__class__ is ast.Attribute:
                    base = base.value
                if base.__class__ not in leaves:
                    expr(base)
            elif func.__class__ not in leaves:
                expr(func)
            for arg in node.args:  # type: ignore[attr-defined]
                if arg.__class__ not in leaves:
                    expr(arg)
            for keyword in node.keywords:  # type: ignore[attr-defined]
                if keyword.value.__class__ not in leaves:
                    expr(keyword.value)
            self.call(node)  # type: ignore[arg-type]
            if func.__class__ is ast.Attribute and func.attr == "record_func":  # type: ignore[attr-defined]
                self.backward_callback(node)  # type: ignore[arg-type]
            return
        if kind in _LEAVES or kind is ast.Lambda:
            return
        if kind is ast.Attribute:
            base = node.value  # type: ignore[attr-defined]
            while base.__class__ is ast.Attribute:
                base = base.value
            if base.__class__ not in _LEAVES:
                self.expr(base)
            return
        if kind in _COMPREHENSIONS:
            scope = self.scopes[-1]
            scope.loop_depth += 1
            try:
                with self.comprehension_scope(node):  # type: ignore[arg-type]
                    for child in _children(node):
                        self.expr(child)
            finally:
                scope.loop_depth -= 1
            return
        if kind is ast.BinOp:
            for child in (node.left, node.right):  # type: ignore[attr-defined]
                if child.__class__ not in _LEAVES:
                    self.expr(child)
            return
        if kind is ast.Subscript:
            for child in (node.value, node.slice):  # type: ignore[attr-defined]
                if child.__class__ not in _LEAVES:
                    self.expr(child)
            return
        # The children of the other common expressions, in ``_children``'s order.
        fields = _EXPR_CHILDREN.get(kind)
        if fields is not None:
            for name in fields:
                child = getattr(node, name)
                if child.__class__ is list:
                    for item in child:
                        if item is not None and item.__class__ not in _LEAVES:
                            self.expr(item)
                elif child is not None and child.__class__ not in _LEAVES:
                    self.expr(child)
            return
        for child in _children(node):
            if child.__class__ not in _LEAVES:
                self.expr(child)

    # statements ----------------------------------------------------------
    def stmt_Import(self, node: ast.Import) -> None:
        top = self.scopes[-1].qualname is None
        for alias in node.names:
            if alias.asname:
                self.facts.aliases[alias.asname] = alias.name
            else:
                root = alias.name.split(".")[0]
                self.facts.aliases.setdefault(root, root)
            self.facts.imports.append((alias.name, node.lineno, top))

    def stmt_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = absolute_module(self.facts.module, self.facts.is_package, node.module, node.level)
        top = self.scopes[-1].qualname is None
        self.facts.imports.append((base, node.lineno, top))
        for alias in node.names:
            if alias.name == "*":
                continue
            self.facts.aliases[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
            self.facts.imports.append((f"{base}.{alias.name}" if base else alias.name, node.lineno, top))

    def stmt_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        scope = self.scopes[-1]
        self.in_decorator = True  # ``@wp.kernel(...)`` is a definition, not a ``kernel_calls`` entry
        try:
            for decorator in node.decorator_list:
                self.expr(decorator)
        finally:
            self.in_decorator = False
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.expr(default)
        warp_decorator = self.warp_decorator(node)
        if node.lineno in self.blanked and (warp_decorator is None or warp_decorator[0] == "overload"):
            raise _BodyNeeded
        if warp_decorator is not None:
            self.warp_definition(node, warp_decorator)
            return
        if node.decorator_list:
            self.decorated_candidate(node)
        params = _params(node)
        if scope.qualname is None:
            qualname = ".".join([*self.class_stack, node.name])
        else:
            qualname = f"{scope.qualname}.<locals>.{node.name}"
        decorators = tuple(self.dotted(_decorator_target(d)) or "" for d in node.decorator_list)
        defaults = _defaults(node)
        fact = FunctionFact(
            qualname=qualname,
            name=node.name,
            span=span_of(node, self._numbers),
            class_name=self.class_stack[-1] if self.class_stack and scope.qualname is None else None,
            parent=scope.qualname,
            params=params,
            defaults={name: self.value(d) for name, d in defaults.items()},
            default_spans={name: span_of(d, self._numbers) for name, d in defaults.items()},
            decorators=decorators,
            memoizes=any(d in _MEMO_DECORATORS for d in decorators),
            is_kernel=False,
            decorator_keywords=tuple(k.arg or "**" for d in node.decorator_list if isinstance(d, ast.Call) for k in d.keywords),
        )
        self.facts.functions[qualname] = fact
        if scope.qualname is not None:
            scope.bound.add(node.name)
            scope.fact.locals.setdefault(node.name, []).append(Value("function", qualname))
        else:
            self.facts.globals.setdefault(node.name if not self.class_stack else qualname, []).append(Value("function", qualname))
        saved_classes, self.class_stack = self.class_stack, []
        inner = _Scope(qualname, fact, params)
        self.scopes.append(inner)
        saved_main, self.in_main = self.in_main, False
        try:
            self.block(node.body)
        finally:
            self.scopes.pop()
            self.class_stack = saved_classes
            self.in_main = saved_main
        # Keeps its results in a container that outlives the call: ``cache[key] = value`` on a
        # global, closure or attribute, ``cache.setdefault(...)``, or a global/nonlocal holder.
        if not fact.memoizes:
            fact.memoizes = inner.declares_outer or any(
                base is None or base not in fact.locals and base not in inner.params for base in inner.container_writes
            )
        # The model reads a function's locals by name only for call bases (``p.run()`` here or
        # in a nested function) and kernel captures; every other read already holds the
        # values (``Value("local", name, assigned)``). The rest go: most of a test suite's.
        fact.locals = {name: values for name, values in fact.locals.items() if name in inner.names_read_later}
        _share_empty_containers(fact)
        if fact.differentiates:
            self.facts.differentiates = True

    stmt_AsyncFunctionDef = stmt_FunctionDef

    def stmt_ClassDef(self, node: ast.ClassDef) -> None:
        for decorator in node.decorator_list:
            self.expr(decorator)
        warp_decorator = self.warp_decorator(node)
        if warp_decorator is not None:  # @wp.struct
            decorator = warp_decorator[1]
            if not (isinstance(decorator, ast.Call) and any(k.arg == "module" for k in decorator.keywords)):
                scope = self.scopes[-1]
                self.facts.structs.append((node.name, scope.qualname, scope.next_order(), node.lineno))
            return
        if self.scopes[-1].qualname is not None:
            return  # classes inside functions: their methods are not modelled
        qualname = ".".join([*self.class_stack, node.name])
        self.facts.classes[qualname] = tuple(self.dotted(b) or "" for b in node.bases)
        self.facts.globals.setdefault(node.name, []).append(Value("class", qualname))
        self.class_stack.append(node.name)
        try:
            self.block(node.body)
        finally:
            self.class_stack.pop()

    def stmt_If(self, node: ast.If) -> None:
        scope = self.scopes[-1]
        if scope.qualname is None and not self.class_stack and _is_main_guard(node.test):
            self.facts.has_main_guard = True
            self.in_main = True
            try:
                self.block(node.body)
            finally:
                self.in_main = False
            self.block(node.orelse)
            return
        self.expr(node.test)
        branch = self._branch_ids[id(node)] = len(self._branch_ids) + 1
        if _first_pass_test(node.test):
            self.facts.first_pass_branches.add(branch)
        scope.guards.append(node)
        cache_guard = _is_cache_guard(node.test)
        scope.cache_guards += cache_guard
        try:
            scope.path.append((branch, 0))
            self.block(node.body)
            scope.path[-1] = (branch, 1)
            self.block(node.orelse)
        finally:
            scope.path.pop()
            scope.guards.pop()
            scope.cache_guards -= cache_guard

    def stmt_Match(self, node: ast.Match) -> None:
        scope = self.scopes[-1]
        self.expr(node.subject)
        branch = self._branch_ids[id(node)] = len(self._branch_ids) + 1
        for arm, case in enumerate(node.cases):
            scope.path.append((branch, arm))
            try:
                if case.guard is not None:
                    self.expr(case.guard)
                self.block(case.body)
            finally:
                scope.path.pop()

    def note_loop(self, node: ast.For | ast.AsyncFor | ast.While) -> None:
        scope = self.scopes[-1]
        first, last = node.lineno, node.end_lineno or node.lineno
        span = (self._numbers.setdefault(first, first), self._numbers.setdefault(last, last))
        if scope.fact is not None:
            scope.fact.loops.append(span)
        elif not self.class_stack:
            self.facts.module_loops.append(span)

    def stmt_For(self, node: ast.For | ast.AsyncFor) -> None:
        self.note_loop(node)
        scope = self.scopes[-1]
        self.expr(node.iter)
        iterated = self.value(node.iter)
        element = Value("elem", None, (iterated,))
        if scope.fact is not None:
            _bind_targets(node.target, element, scope.fact.loop_tables, single=True)
        elif not self.class_stack:
            _bind_targets(node.target, element, self.facts.globals)
        scope.loop_depth += 1
        scope.enter_loop(node.body)
        try:
            self.block(node.body)
        finally:
            scope.loop_depth -= 1
            scope.loops.pop()
        self.block(node.orelse)

    stmt_AsyncFor = stmt_For

    def stmt_While(self, node: ast.While) -> None:
        self.note_loop(node)
        scope = self.scopes[-1]
        scope.enter_loop(node.body)  # the test reads what the body assigned on the pass before
        self.expr(node.test)
        scope.loop_depth += 1
        try:
            self.block(node.body)
        finally:
            scope.loop_depth -= 1
            scope.loops.pop()
        self.block(node.orelse)

    def backward_callback(self, node: ast.Call) -> None:
        """``tape.record_func(lambda: self.vjp(x), arrays)``: the lambda runs in the tape's
        backward pass, when no tape records. Its calls are the caller's, in a ``backward``
        context (``WithFact``) that the model reads as a suspension of the tape."""
        callback = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "backward"), None)
        if callback is None or callback.__class__ is not ast.Lambda:
            return  # a function handed on by name: a value the model keeps (it may run anywhere)
        scope = self.scopes[-1]
        withs, depth = scope.withs, scope.tape_depth
        scope.withs = (*withs, WithFact("backward", None, None, False, self.facts.module, scope.qualname))
        scope.tape_depth = 0
        try:
            self.expr(callback.body)  # type: ignore[attr-defined]
        finally:
            scope.withs, scope.tape_depth = withs, depth

    def stmt_With(self, node: ast.With | ast.AsyncWith) -> None:
        taped = False
        raises = False
        scope = self.scopes[-1]
        contexts: list[WithFact] = []
        for item in node.items:
            self.expr(item.context_expr)
            context = item.context_expr
            if expects_error(context, self.facts.aliases):
                raises = True
                continue
            cls = context.__class__
            if cls is ast.Call and self.warp_name(context.func) == "warp.Tape":  # type: ignore[attr-defined]
                self.mark_differentiates()
                taped = True
                contexts.append(WithFact("tape", None, None, True, self.facts.module, scope.qualname))
            elif cls is ast.Name or cls is ast.Attribute:
                # ``with tape:``, ``with self.tape:``: the file reads the name; the model the value.
                named = "tape" in _text(context).lower()
                taped = taped or named
                dotted = self.dotted(context)
                if named or dotted is None or not dotted.startswith(_NO_TAPE_CONTEXT_ROOTS):
                    contexts.append(WithFact("value", None, self.value(context), named, self.facts.module, scope.qualname))
            elif cls is ast.Call:
                # ``with SGATape():`` (a wp.Tape subclass of the project's own), ``with
                # suspended_tape():`` (a context manager pausing the tape): the model tells them apart.
                named = "tape" in _text(context.func).lower()  # type: ignore[attr-defined]
                taped = taped or named
                callee = self.dotted(context.func)  # type: ignore[attr-defined]
                if callee is not None and (named or not (callee in _NO_TAPE_CONTEXTS or callee.startswith(_NO_TAPE_CONTEXT_ROOTS))):
                    contexts.append(WithFact("call", callee, None, named, self.facts.module, scope.qualname))
        withs = scope.withs
        scope.withs = (*withs, *contexts) if contexts else withs
        scope.tape_depth += taped
        scope.raises_depth += raises
        try:
            self.block(node.body)
        finally:
            scope.tape_depth -= taped
            scope.raises_depth -= raises
            scope.withs = withs

    stmt_AsyncWith = stmt_With

    def stmt_Try(self, node: ast.Try) -> None:
        # Statement by statement, as any other compound statement's children are walked. (No
        # try/finally for the depths: an error while walking abandons the file's facts.)
        scope = self.scopes[-1]
        for stmt in node.body:
            self.stmt(stmt)
        scope.handler_depth += 1
        for handler in node.handlers:
            self.generic(handler)
        scope.handler_depth -= 1
        for stmt in node.orelse:
            self.stmt(stmt)
        scope.finally_depth += 1
        for stmt in node.finalbody:
            self.stmt(stmt)
        scope.finally_depth -= 1

    stmt_TryStar = stmt_Try

    def stmt_Assign(self, node: ast.Assign | ast.AnnAssign | ast.AugAssign) -> None:
        value_node = node.value
        if value_node is not None:
            self.expr(value_node)
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        scope = self.scopes[-1]
        if value_node is None:
            value = UNKNOWN
        elif scope.fact is None and self.class_stack and not any(t.__class__ in _HOLDER_TARGETS for t in targets):
            value = UNKNOWN  # a class attribute (``dt: float = 0.01``): nothing keeps its value
        else:
            self.attribute_read(value_node)
            value = self.value(value_node)
        if isinstance(node, ast.AugAssign):
            value = CHANGED  # ``x *= 0.95``
        elif scope.guards and value.kind == "const" and value.data == 1 and value.data.__class__ is int:
            # ``if not device.is_cuda: tile = 1``: the CPU's block size, one arm of a choice by
            # device (as ``X if cuda else 1`` is), which a GPU build never sees.
            test = _text(scope.guards[-1].test)
            if any(word in test.lower() for word in DEVICE_WORDS):
                value = Value("choice", test, (value,))
        if scope.fact is not None and not scope.runtime_tape_set and value_node is not None:
            self.runtime_tape_write(targets, value_node)
        for target in targets:
            if isinstance(target, ast.Attribute):
                name = self.warp_name(target)
                if name and name.startswith(CONFIG_PREFIX):
                    self.option_config(name[len(CONFIG_PREFIX):], value, node)
                    continue
                if name and value.kind in ("name", "local"):
                    self.facts.patches.append((name, value))
                if isinstance(target.value, ast.Name) and target.value.id == "self" and scope.fact is not None:
                    scope.fact.self_attrs.setdefault(target.attr, []).append(value)
                else:
                    self.facts.attr_writes.setdefault(target.attr, []).append((scope.qualname, value))
                self.expr(target.value)
            elif isinstance(target, ast.Subscript):
                self.expr(target)
                self.options_item(target, value, node)
                holder_node = target.value
                if isinstance(holder_node, ast.Name):
                    scope.container_writes.append(holder_node.id)
                elif isinstance(holder_node, ast.Attribute):
                    scope.container_writes.append(None)
                # ``_KERNELS[key] = kernel`` fills a cache: what the table can hold; a nested
                # ``_KERNELS[dtype][order] = kernel`` fills the table of tables it names.
                entry = Value("dict", None, (self.value(target.slice), value))
                holder = target.value
                while holder.__class__ is ast.Subscript:
                    entry = Value("dict", None, (self.value(holder.slice), entry))  # type: ignore[attr-defined]
                    holder = holder.value  # type: ignore[attr-defined]
                if isinstance(holder, ast.Name) and scope.fact is not None and holder.id in scope.fact.locals:
                    # ``overloads = {}; for t in types: overloads[t] = wp.overload(k, ...)``:
                    # a later read of the local holds what was stored so far.
                    scope.fact.locals[holder.id].append(entry)
                elif isinstance(holder, ast.Name) and holder.id not in scope.bound and not self.class_stack:
                    self.facts.globals.setdefault(holder.id, []).append(_stored(entry, scope.qualname))
                elif (isinstance(holder, ast.Attribute) and isinstance(holder.value, ast.Name)
                      and holder.value.id == "self" and scope.fact is not None):  # fmt: skip
                    scope.fact.self_attrs.setdefault(holder.attr, []).append(entry)
            elif scope.fact is not None:
                if target.__class__ is ast.Name and scope.guards:
                    self.mark_cpu_default(target.id, scope)  # type: ignore[attr-defined]
                _bind_targets(target, value, scope.fact.locals)
                if isinstance(target, (ast.Tuple, ast.List)):  # self.a, self.b = make()
                    for index, element in enumerate(target.elts):
                        if (isinstance(element, ast.Attribute) and isinstance(element.value, ast.Name)
                                and element.value.id == "self"):  # fmt: skip
                            part = unpacked_item(value, index, len(target.elts))
                            scope.fact.self_attrs.setdefault(element.attr, []).append(part)
            elif self.class_stack:
                if isinstance(target, ast.Name) and scope.fact is None:
                    # A field: the kernel a NamedTuple/dataclass holds by default, or its
                    # position for ``Kernels(integrate, ...)``.
                    # (a constant or a call too: ``_kernel = None``, ``k = make(wp.float32)``,
                    # read as a class attribute ``Mesh.k`` / ``self.k``).
                    held = (self.value(value_node) if isinstance(value_node, _CLASS_FIELD_VALUES)
                            else UNSET if value_node is None else UNKNOWN)  # fmt: skip
                    self.facts.class_fields.setdefault(".".join(self.class_stack), []).append((target.id, held))
                # ``__call__ = forward`` in a class body: calling the object runs ``forward``.
                if isinstance(target, ast.Name) and isinstance(value_node, ast.Name):
                    prefix = ".".join(self.class_stack) + "."
                    method = self.facts.method_aliases.get(prefix + value_node.id, prefix + value_node.id)
                    if method in self.facts.functions:
                        self.facts.method_aliases[prefix + target.id] = method
            else:
                _bind_targets(target, value, self.facts.globals)
                if isinstance(target, ast.Name) and value_node is not None:
                    if isinstance(value_node, (ast.Name, ast.Attribute)) and _names_any(value_node, self):
                        self.any_aliases.add(target.id)
                    else:
                        self.any_aliases.discard(target.id)
            if isinstance(value_node, ast.Call) and isinstance(target, ast.Name):
                self.note_cache_dir_value(target.id, value_node)

    def mark_cpu_default(self, name: str, scope: Any) -> None:
        """``bd = 1`` then ``if device.is_cuda and ...: bd = 256``: the 1 is what the CPU
        keeps, one arm of a choice by device (as ``256 if cuda else 1`` is), which a GPU
        build never sees (newton's kamino DVI solver). Only in the body of a test that
        names the device, not its ``else`` nor under ``not``."""
        guard = scope.guards[-1]
        if guard.test.__class__ is ast.UnaryOp or (self._branch_ids[id(guard)], 0) not in scope.path:
            return
        test = _text(guard.test)
        if not any(word in test.lower() for word in DEVICE_WORDS):
            return
        earlier = scope.fact.locals.get(name)
        if earlier:
            scope.fact.locals[name] = [
                Value("choice", test, (value,)) if value.kind == "const" and value.data == 1 and value.data.__class__ is int
                else value
                for value in earlier
            ]

    def captures_of(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(captures, the captures it calls) of a kernel defined at ``node``. Only a kernel made
        inside a function can capture that function's values: its parameters, nested
        definitions, the locals assigned before it (``TILE_M = tile_m``) and the variables of
        the loops around it."""
        scope = self.scopes[-1]
        if scope.qualname is None:
            return (), ()
        fact = scope.fact
        read, called = _free_names(node)
        captures = tuple(sorted(n for n in read if n in scope.bound or n in fact.locals or n in fact.loop_tables))
        scope.names_read_later.update(captures)
        return captures, tuple(n for n in captures if n in called)

    def runtime_tape_write(self, targets: list[ast.expr], value_node: ast.expr) -> None:
        """``runtime.tape = None`` (``runtime`` bound to ``wp.context.runtime``), ``tape,
        runtime.tape = runtime.tape, None``, ``wp.context.runtime.tape = None``: the first
        write of Warp's runtime tape in the function, outside ``finally:`` and handlers (a
        context manager putting a tape back, or ending its own, writes there), sets
        ``FunctionFact.suspends_tape``."""
        scope = self.scopes[-1]
        pairs: list[tuple[ast.expr, ast.expr | None]] = []
        for target in targets:
            if target.__class__ is ast.Tuple or target.__class__ is ast.List:
                values = value_node.elts if value_node.__class__ in (ast.Tuple, ast.List) else None  # type: ignore[attr-defined]
                elts = target.elts  # type: ignore[attr-defined]
                if values is not None and len(values) != len(elts):
                    values = None
                pairs.extend((elt, values[i] if values is not None else None) for i, elt in enumerate(elts))
            else:
                pairs.append((target, value_node))
        for target, assigned in pairs:
            if target.__class__ is not ast.Attribute or target.attr != "tape" or not self.is_warp_runtime(target.value):  # type: ignore[attr-defined]
                continue
            if scope.finally_depth or scope.handler_depth:
                continue
            scope.runtime_tape_set = True
            scope.fact.suspends_tape = assigned.__class__ is ast.Constant and assigned.value is None  # type: ignore[union-attr]
            return

    def is_warp_runtime(self, node: ast.expr) -> bool:
        """``wp.context.runtime`` (``wp._src.context.runtime``), or a name the function or
        module binds to it."""
        if self.warp_name(node) == "warp.runtime":
            return True
        if node.__class__ is not ast.Name:
            return False
        fact = self.scopes[-1].fact
        name = node.id  # type: ignore[attr-defined]
        assigned = fact.locals.get(name) if fact is not None and name in fact.locals else self.facts.globals.get(name)
        return any(v.kind == "name" and _as_warp_name(v.data) == "warp.runtime" for v in assigned or ())

    stmt_AnnAssign = stmt_Assign
    stmt_AugAssign = stmt_Assign

    def stmt_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        self.scopes[-1].declares_outer = True

    stmt_Nonlocal = stmt_Global

    def stmt_Return(self, node: ast.Return) -> None:
        if node.value is not None:
            self.expr(node.value)
            scope = self.scopes[-1]
            if scope.fact is not None:
                scope.fact.returns.append(self.value(node.value))

    def stmt_Expr(self, node: ast.Expr) -> None:
        self.expr(node.value)
        self.attribute_read(node.value)  # ``self.kernel`` alone: a property read ahead of use

    # warp definitions ------------------------------------------------------
    def warp_decorator(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> tuple[str, ast.expr] | None:
        for decorator in node.decorator_list:
            name = self.warp_name(_decorator_target(decorator))
            if name and name.startswith("warp."):
                last = name.rsplit(".", 1)[1]
                if last in WARP_DECORATORS:
                    return last, decorator
        return None

    def warp_definition(self, node: ast.FunctionDef | ast.AsyncFunctionDef, found: tuple[str, ast.expr]) -> None:
        kind, decorator = found
        scope = self.scopes[-1]
        if kind == "overload":
            self.facts.overloads.append((node.name, span_of(node, self._numbers), scope.qualname))
            return
        keywords = {k.arg: k for k in decorator.keywords if k.arg} if isinstance(decorator, ast.Call) else {}
        module_kw = keywords.get("module")
        options_kw = keywords.get("module_options")
        backward_kw = keywords.get("enable_backward")
        generic = _is_generic(node, self)
        captures, called_captures = self.captures_of(node)
        guarded = bool(scope.guards)
        self.facts.kernels.append(
            KernelFact(
                name=node.name,
                decorator=kind,
                span=span_of(node, self._numbers),
                decorator_span=span_of(decorator, self._numbers),
                function=scope.qualname,
                module=self.value(module_kw.value) if module_kw else None,
                module_span=span_of(module_kw, self._numbers) if module_kw else None,
                module_options=self.value(options_kw.value) if options_kw else None,
                enable_backward=self.value(backward_kw.value) if backward_kw else None,
                generic=generic,
                captures=captures,
                called_captures=called_captures,
                order=scope.next_order(),
                loop_depth=scope.loop_depth,
                guarded=guarded,
                cache_guarded=scope.cache_guards > 0,
                path=tuple(scope.path),
                keywords=tuple(k.arg for k in decorator.keywords) if isinstance(decorator, ast.Call) else (),
                options_span=span_of(options_kw, self._numbers) if options_kw else None,
                expects_error=scope.raises_depth > 0,
                owner=".".join(self.class_stack) if self.class_stack and scope.qualname is None else None,
            )
        )
        if scope.qualname is not None:
            scope.bound.add(node.name)
            scope.fact.locals.setdefault(node.name, []).append(Value("kernel", node.name))
        else:
            self.facts.globals.setdefault(node.name, []).append(Value("kernel", node.name))

    def decorated_candidate(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """``FileFacts.decorated``: the kernel a function would be if one of its decorators is a
        project's kernel decorator (the model decides: a single file cannot tell)."""
        candidates = []
        for decorator in reversed(node.decorator_list):  # innermost first: the one applied first
            dotted = self.dotted(_decorator_target(decorator))
            if (not dotted or dotted in _NOT_KERNEL_DECORATORS or dotted.startswith(_NOT_KERNEL_DECORATOR_ROOTS)
                    or dotted.endswith((".setter", ".getter", ".deleter"))):  # fmt: skip
                continue
            candidates.append((dotted, self.value(decorator) if decorator.__class__ is ast.Call else None, decorator))
        if not candidates:
            return
        scope = self.scopes[-1]
        captures, called_captures = self.captures_of(node)
        first = candidates[0][2]
        kernel = KernelFact(
            name=node.name, decorator="kernel", span=span_of(node, self._numbers),
            decorator_span=span_of(first, self._numbers), function=scope.qualname, module=None, module_span=None,
            module_options=None, enable_backward=None, generic=_is_generic(node, self), captures=captures,
            called_captures=called_captures, order=scope.next_order(), loop_depth=scope.loop_depth, guarded=bool(scope.guards),
            cache_guarded=scope.cache_guards > 0, path=tuple(scope.path),
            keywords=tuple(k.arg for k in first.keywords) if first.__class__ is ast.Call else (),  # type: ignore[attr-defined]
            expects_error=scope.raises_depth > 0,
            owner=".".join(self.class_stack) if self.class_stack and scope.qualname is None else None,
        )  # fmt: skip
        self.facts.decorated.append((kernel, tuple((dotted, value) for dotted, value, _node in candidates)))

    # calls ---------------------------------------------------------------
    def calls_super(self, node: ast.AST) -> bool:
        """``super()`` (or ``super(Cls, self)`` naming the method's own class), the builtin
        not rebound: the call ``super().method(...)`` runs the method a base class defines."""
        if node.__class__ is not ast.Call or node.keywords or self.dotted(node.func) != "super":  # type: ignore[attr-defined]
            return False
        if "super" in self.facts.globals or "super" in self.facts.aliases:
            return False
        arguments = node.args  # type: ignore[attr-defined]
        if not arguments:
            return True
        fact = self.scopes[-1].fact
        owner = fact.class_name if fact is not None else None
        return (len(arguments) == 2 and arguments[0].__class__ is ast.Name and owner is not None
                and arguments[0].id == owner.rpartition(".")[2])  # fmt: skip

    def call(self, node: ast.Call) -> None:
        scope = self.scopes[-1]
        func = node.func
        callee = self.dotted(func)
        namespace = bool(node.keywords) and callee in NAMESPACE_CLASSES
        for keyword in node.keywords:
            if keyword.arg is not None and (namespace or _is_private(keyword.arg)):  # ``Context(_megakernel=None)``
                self.facts.attr_writes.setdefault(keyword.arg, []).append((scope.qualname, self.value(keyword.value)))
        if node.keywords and not (self.facts.requires_grad and (scope.fact is None or scope.fact.asks_grad)):
            for keyword in node.keywords:
                if keyword.arg == "requires_grad":
                    value = keyword.value
                    constant = value.__class__ is ast.Constant
                    if constant and value.value is True:  # type: ignore[attr-defined]
                        self.facts.requires_grad = True
                    if scope.fact is not None and not (constant and not value.value):  # type: ignore[attr-defined]
                        scope.fact.asks_grad = True
        if callee is not None and callee.startswith("warp") and (len(callee) == 4 or callee[4] == "."):
            self.warp_call(_as_warp_name(callee), node)  # type: ignore[arg-type]
            return
        if callee is None:
            # ``self.x.method()`` with a non-name base, ``obj.method()`` on a call result...
            if func.__class__ is ast.Attribute:
                receiver = "super" if self.calls_super(func.value) else "?"  # type: ignore[attr-defined]
                callee = receiver + "." + func.attr  # type: ignore[attr-defined]
            else:
                if self.applied_kernel(node) is not None:
                    self.kernel_made(node, func)  # type: ignore[arg-type]
                return
        if callee.rpartition(".")[2] in _OTHER_CALL_NAMES:
            self.other_call(callee, node)
        owner = scope.fact
        if owner is not None:
            if (callee in _BUILTIN_CALLS or callee.startswith(_NEVER_PROJECT_ROOTS)
                    or not scope.tape_depth and (callee in _LIBRARY_BUILTINS or callee.startswith(_LIBRARY_ROOTS))):  # fmt: skip
                return  # ``len(x)``, ``np.zeros(n)``, ``os.path.join(...)``: no edge of the call graph
        elif self.class_stack and not self.in_main:
            scope.order += 1  # a class body's call: no fact keeps it, but it takes its place in the order
            return
        # (The fields in order, positionally: keywords cost a slotted __init__ a third more.)
        value_of = self.value
        args = node.args
        arguments = [value_of(a) for a in args]
        passes_star = False
        for a in args:
            if a.__class__ is ast.Starred:
                passes_star = True
                arguments = [item for a, item in zip(args, arguments) if a.__class__ is not ast.Starred]
                break
        keywords = node.keywords
        if keywords:
            named = [(k.arg, value_of(k.value)) for k in keywords if k.arg]
            kwargs = dict(named)
            if len(named) != len(keywords):
                passes_star = True
        else:
            kwargs = _NO_KWARGS
        scope.order += 1
        fact = CallFact(callee, tuple(arguments), kwargs, span_of(node, self._numbers), scope.order, scope.loop_depth,
                        bool(scope.guards), scope.cache_guards > 0, passes_star, scope.tape_depth > 0, tuple(scope.path),
                        scope.withs)  # fmt: skip
        if owner is not None:
            owner.calls.append(fact)
            base = callee.split(".", 1)[0]
            for outer in self.scopes:  # a nested function's call may go through an outer local
                outer.names_read_later.add(base)
        elif self.in_main:
            self.facts.main_calls.append(fact)
        else:
            self.facts.module_calls.append(fact)

    def kernel_object(self, node: ast.Call) -> None:
        """``wp.Kernel(func=f, key=..., options=...)``: a kernel made of the Python function
        ``f``, where the call runs (``FileFacts.kernel_objects``)."""
        scope = self.scopes[-1]
        module = call_argument(node, "module", 2)
        options = call_argument(node, "options", 3)
        backward: Value | None = None
        if isinstance(options, ast.Dict) and not options.keys:
            backward = None
        elif isinstance(options, ast.Dict) and all(isinstance(k, ast.Constant) for k in options.keys):
            found = [v for k, v in zip(options.keys, options.values) if k.value == "enable_backward"]  # type: ignore[union-attr]
            backward = self.value(found[0]) if found else None
        elif options is not None and not (isinstance(options, ast.Constant) and options.value is None):
            backward = UNKNOWN
        span = span_of(node, self._numbers)
        kernel = KernelFact(
            name="", decorator="kernel", span=span, decorator_span=span, function=scope.qualname,
            module=self.value(module) if module is not None else None, module_span=None, module_options=None,
            enable_backward=backward, generic=False, captures=(), order=scope.next_order(), loop_depth=scope.loop_depth,
            guarded=bool(scope.guards), cache_guarded=scope.cache_guards > 0, path=tuple(scope.path),
            expects_error=scope.raises_depth > 0,
        )  # fmt: skip
        self.facts.kernel_objects.append((kernel, self.value(node)))

    def kernel_made(self, node: ast.Call, options: ast.Call) -> None:
        """``wp.kernel(fn, ...)`` / ``wp.kernel(...)(fn)`` called in code: a kernel object made
        of the Python function ``fn`` where the call runs, as ``wp.Kernel(func=fn)`` is
        (``FileFacts.kernel_objects``), with the options ``options`` (the call holding the
        keywords) passes."""
        scope = self.scopes[-1]
        keywords = {k.arg: k.value for k in options.keywords}
        spread = None in keywords  # ``**options``: the module and backward option are unknown
        module = self.value(keywords["module"]) if "module" in keywords else UNKNOWN if spread else None
        backward: Value | None = None
        if "enable_backward" in keywords:
            backward = self.value(keywords["enable_backward"])
        elif spread or "module_options" in keywords:
            backward = UNKNOWN
        span = span_of(node, self._numbers)
        kernel = KernelFact(
            name="", decorator="kernel", span=span, decorator_span=span, function=scope.qualname,
            module=module, module_span=None, module_options=None,
            enable_backward=backward, generic=False, captures=(), order=scope.next_order(), loop_depth=scope.loop_depth,
            guarded=bool(scope.guards), cache_guarded=scope.cache_guards > 0, path=tuple(scope.path),
            expects_error=scope.raises_depth > 0,
        )  # fmt: skip
        self.facts.kernel_objects.append((kernel, self.value(node)))

    def container_store(self, holder: ast.expr, method: str, node: ast.Call) -> None:
        """``table.setdefault(k, v)`` / ``table.update({...})`` / ``items.append(v)`` /
        ``items.extend(vs)`` / ``items.insert(i, v)`` on a global, a local or ``self.attr``: what
        the container can hold, as ``table[k] = v`` records it (a list's entry is a tuple of what
        it adds: its elements). A call the model cannot read (``**kw``, ``*args``) adds UNKNOWN:
        the container may then hold anything."""
        self_attr = (holder.__class__ is ast.Attribute and holder.value.__class__ is ast.Name  # type: ignore[attr-defined]
                     and holder.value.id == "self")  # type: ignore[attr-defined]  # fmt: skip
        if holder.__class__ is not ast.Name and not self_attr:
            return
        entry = self._stored_entry(method, node)
        scope = self.scopes[-1]
        if self_attr:
            # ``self.x.update(...)`` may be any object's method (a hot ``update``): a store only
            # where it is handed a dict literal.
            if scope.fact is not None and (method != "update" or entry.kind == "dict"):
                scope.fact.self_attrs.setdefault(holder.attr, []).append(entry)  # type: ignore[attr-defined]
            return
        if entry is UNKNOWN and method not in _LIST_STORES:
            return  # ``x.update(**kw)`` of an object that may be no table: as before, not a store
        name = holder.id  # type: ignore[attr-defined]
        if scope.fact is not None and name in scope.fact.locals:
            scope.fact.locals[name].append(entry)
        elif name not in scope.bound and not self.class_stack and name in self.facts.globals:
            self.facts.globals[name].append(_stored(entry, scope.qualname))

    def _stored_entry(self, method: str, node: ast.Call) -> Value:
        """What a container method call adds, as an entry of the container (UNKNOWN: unread)."""
        args = node.args
        if node.keywords or any(a.__class__ is ast.Starred for a in args):
            return UNKNOWN
        if method == "update" and len(args) == 1 or method == "extend" and len(args) == 1:
            return self.value(args[0])
        if method in ("setdefault", "__setitem__") and len(args) == 2:
            return Value("dict", None, (self.value(args[0]), self.value(args[1])))
        if method == "append" and len(args) == 1 or method == "insert" and len(args) == 2:
            return Value("tuple", None, (self.value(args[-1]),))
        return UNKNOWN

    def attribute_read(self, node: ast.AST) -> None:
        """``self.k`` read where it may be a property (a launch's kernel, ``k = self.k``, a
        bare ``self.k``): the property's body, often a kernel's definition, runs here. The
        model resolves the ``self.k.__get__`` call this records to the property, or to nothing."""
        scope = self.scopes[-1]
        if (scope.fact is None or node.__class__ is not ast.Attribute or node.value.__class__ is not ast.Name  # type: ignore[attr-defined]
                or node.value.id not in ("self", "cls")):  # type: ignore[attr-defined]  # fmt: skip
            return
        scope.fact.calls.append(CallFact(
            f"{node.value.id}.{node.attr}.__get__", (), _NO_KWARGS, span_of(node, self._numbers),  # type: ignore[attr-defined]
            scope.next_order(), scope.loop_depth, bool(scope.guards), cache_guarded=scope.cache_guards > 0,
            taped=scope.tape_depth > 0, path=tuple(scope.path), withs=scope.withs,
        ))  # fmt: skip

    def fem_call(self, name: str, node: ast.Call) -> None:
        """``FileFacts.fem_calls``: the call, where it sits, and what its ``kernel_options`` say."""
        scope = self.scopes[-1]
        options = call_argument(node, "kernel_options")
        insert: Span | None = None
        empty = False
        if any(k.arg is None for k in node.keywords) or any(a.__class__ is ast.Starred for a in node.args):
            state = "set"  # ``**kwargs`` may carry kernel_options
        elif options is None:
            state = "absent"
            last = [*node.args, *(k.value for k in node.keywords)]
            if last:
                end = max(last, key=lambda n: (n.end_lineno or 0, n.end_col_offset or 0))
                insert = (end.end_lineno or 1, end.end_col_offset or 0, end.end_lineno or 1, end.end_col_offset or 0)
        elif options.__class__ is ast.Dict and None not in options.keys and not any(  # type: ignore[attr-defined]
            k.__class__ is ast.Constant and k.value == "enable_backward" for k in options.keys  # type: ignore[attr-defined]
        ):
            state = "literal"
            if options.values:  # type: ignore[attr-defined]
                end = options.values[-1]  # type: ignore[attr-defined]
                insert = (end.end_lineno or 1, end.end_col_offset or 0, end.end_lineno or 1, end.end_col_offset or 0)
            else:
                empty = True
                insert = (options.lineno, options.col_offset + 1, options.lineno, options.col_offset + 1)
        else:
            state = "set"
        grad = any(
            k.arg == "requires_grad" and not (k.value.__class__ is ast.Constant and not k.value.value)  # type: ignore[attr-defined]
            for argument in [*node.args, *(k.value for k in node.keywords)]
            for sub in ast.walk(argument) if sub.__class__ is ast.Call
            for k in sub.keywords  # type: ignore[attr-defined]
        )
        kind = name.rsplit(".", 1)[1]
        fields_node = call_argument(node, "fields", 3 if kind == "integrate" else None)
        fields = (tuple(  # type: ignore[attr-defined]
            (k.value if k.__class__ is ast.Constant and isinstance(k.value, str) else None, self.value(v))  # type: ignore[attr-defined]
            for k, v in zip(fields_node.keys, fields_node.values)  # type: ignore[attr-defined]
        ) if fields_node.__class__ is ast.Dict and None not in fields_node.keys else None)  # type: ignore[attr-defined]  # fmt: skip
        assembly = call_argument(node, "assembly", 11 if kind == "integrate" else None)
        self.facts.fem_calls.append(FemCallFact(
            kind, span_of(node.func, self._numbers), scope.qualname, scope.tape_depth > 0, state, insert,
            empty, grad, self.dotted(call_argument(node, "integrand", 0)), fields,
            self.value(assembly) if assembly is not None else None, scope.withs,
        ))  # fmt: skip

    def warp_call(self, name: str, node: ast.Call) -> None:
        scope = self.scopes[-1]
        if scope.fact is not None and name.count(".") > 1 and not name.startswith(("warp.config.", "warp.types.")):
            # ``wp.sim.collide(...)``: a Warp API under a submodule may be a project function
            # installed in its place (``wp.sim.collide = collide``); the model checks.
            scope.fact.calls.append(CallFact(name, (), {}, span_of(node, self._numbers), scope.next_order(), scope.loop_depth,
                                             bool(scope.guards), taped=scope.tape_depth > 0,
                                             path=tuple(scope.path), withs=scope.withs))  # fmt: skip
        if name in FEM_CALLS:
            self.fem_call(name, node)
        if name == "warp.Kernel":
            self.kernel_object(node)
            return
        if name == "warp.kernel" and not self.in_decorator and len(node.args) == 1 and node.args[0].__class__ is not ast.Starred:
            self.kernel_made(node, node)  # ``wp.kernel(fn, module="unique")`` called, not applied as a decorator
        kind = _LOAD_KINDS.get(name)
        if kind is not None:
            kernel = call_argument(node, "kernel", 0) if kind in ("launch", "launch_tiled", "block_size_query") else None
            if kernel is not None:
                self.attribute_read(kernel)
                if isinstance(kernel, ast.Attribute):  # ``kernels.step``: the model reads the local by name
                    head = self.dotted(kernel)
                    for outer in self.scopes if head is not None else ():
                        outer.names_read_later.add(head.split(".", 1)[0])
            target = None
            if kind == "load_module":
                target = call_argument(node, "module", 0)
            elif kind == "force_load":
                target = call_argument(node, "modules", 2)
            inputs = call_argument(node, "inputs", 2 if kind == "launch" else 2)
            outputs = call_argument(node, "outputs", 3) if kind in ("launch", "launch_tiled") else None
            dtypes = tuple(_text(e) for e in inputs.elts) if isinstance(inputs, (ast.List, ast.Tuple)) else ()
            block_dim = call_argument(node, "block_dim")
            if kind == "block_size_query":
                block_dim = None
            self.facts.launches.append(
                LaunchFact(
                    kind=kind,
                    kernel=self.value(kernel) if kernel is not None else UNKNOWN,
                    target=self.value(target) if target is not None else None,
                    block_dim=self.value(block_dim) if block_dim is not None else None,
                    dtypes=dtypes,
                    adjoint=self.value(call_argument(node, "adjoint")) if call_argument(node, "adjoint") is not None else None,
                    device=self.value(call_argument(node, "device")) if call_argument(node, "device") is not None else None,
                    max_workers=self.value(call_argument(node, "max_workers"))
                    if call_argument(node, "max_workers") is not None else None,
                    span=span_of(node, self._numbers),
                    function=scope.qualname,
                    order=scope.next_order(),
                    loop_depth=scope.loop_depth,
                    guarded=bool(scope.guards) or scope.handler_depth > 0,
                    taped=scope.tape_depth > 0,
                    withs=scope.withs,
                    inputs=tuple(self.value(e) for e in inputs.elts) if isinstance(inputs, (ast.List, ast.Tuple)) else (),
                    path=tuple(scope.path),
                    kernel_span=span_of(kernel, self._numbers) if kernel is not None else None,
                    inputs_param=inputs.id if isinstance(inputs, ast.Name) and inputs.id in scope.params else None,
                    outputs=tuple(self.value(e) for e in outputs.elts) if isinstance(outputs, (ast.List, ast.Tuple)) else (),
                )
            )
            adjoint = call_argument(node, "adjoint")
            if isinstance(adjoint, ast.Constant) and adjoint.value is True:
                self.mark_differentiates()
            return
        if name == "warp.kernel" and scope.fact is not None and not self.in_decorator:
            keywords = {k.arg: k.value for k in node.keywords}  # type: ignore[attr-defined]
            module = keywords.get("module")
            self.facts.kernel_calls.append((
                scope.qualname, span_of(node, self._numbers), self.value(module) if module is not None else None,
                "enable_backward" in keywords or "module_options" in keywords, None in keywords,
            ))  # fmt: skip
        if name == "warp.set_module_options":
            options_node = call_argument(node, "options", 0) or call_argument(node, "opts", 0)
            target_node = call_argument(node, "module", 1)
            via_get_module = isinstance(target_node, ast.Call) and self.warp_name(target_node.func) == "warp.get_module"
            self.option_module(options_node, target_node, node, via_get_module=via_get_module, set_by_call=True)
            return
        if name == "warp.get_module_options":
            scope.saved_options = True
            return
        if name == "warp.overload":
            target = call_argument(node, "kernel", 0)
            dotted = self.dotted(target) if target is not None else None
            self.facts.overloads.append((dotted or "", span_of(node, self._numbers), scope.qualname))
            return
        if name in ("warp.clear_kernel_cache", "warp.clear_lto_cache"):
            self.cache(name.rsplit(".", 1)[1], None, node)
            return
        if name in ("warp.Tape", "warp.grad", "warp.adjoint"):
            self.mark_differentiates()
        if name.startswith("warp.autograd."):
            self.facts.warp_autograd = True
            self.mark_differentiates()
        if name.startswith("warp.") and name.endswith(".backward"):
            self.mark_differentiates()

    def other_call(self, callee: str, node: ast.Call) -> None:
        """Non-Warp calls that still matter: option updates through ``get_module``, setattr on
        the config, cache removal, atexit registrations, ``.backward()``, cache writes."""
        last = callee.rsplit(".", 1)[-1]
        if last in ("setdefault", "__setitem__") and isinstance(node.func, ast.Attribute):
            holder = node.func.value
            self.scopes[-1].container_writes.append(holder.id if isinstance(holder, ast.Name) else None)
        if last in _CONTAINER_STORES and isinstance(node.func, ast.Attribute):
            self.container_store(node.func.value, last, node)
        if last == "backward" and callee.startswith(("?.", "tape", "self.tape")) or callee.endswith("tape.backward"):
            self.mark_differentiates()
        if isinstance(node.func, ast.Attribute) and node.func.attr == "update":
            base = node.func.value
            if isinstance(base, ast.Attribute) and base.attr == "options" and isinstance(base.value, ast.Call):
                if self.warp_name(base.value.func) == "warp.get_module":
                    target = call_argument(base.value, "name", 0)
                    self.option_module(node.args[0] if node.args else None, target, node)
        if callee in ("setattr", "builtins.setattr") and len(node.args) >= 3:
            name = self.warp_name(node.args[0])
            if name == "warp.config":
                option = node.args[1]
                key = option.value if isinstance(option, ast.Constant) and isinstance(option.value, str) else "*"
                self.option_config(key, self.value(node.args[2]), node)
        if callee in ("shutil.rmtree", "os.rmdir", "os.removedirs"):
            self.cache("rmtree", self.value(node.args[0]) if node.args else None, node)
        if callee == "atexit.register" and node.args:
            target = self.dotted(node.args[0])
            if target in ("shutil.rmtree",):
                self.cache("atexit_rmtree", self.value(node.args[1]) if len(node.args) > 1 else None, node)
            elif target:
                self.facts.atexit_targets.append((target, span_of(node, self._numbers)))
        if callee in ("os.environ.__setitem__", "os.environ.setdefault", "os.putenv") and node.args:
            key = node.args[0]
            if isinstance(key, ast.Constant) and key.value == "CUDA_CACHE_DISABLE":
                self.cache("cuda_cache_disable", None, node)

    def note_cache_dir_value(self, name: str, value: ast.Call) -> None:
        callee = self.dotted(value.func) or ""
        if callee in ("tempfile.mkdtemp", "tempfile.TemporaryDirectory", "tempfile.gettempdir"):
            self.facts.cache_dir_names.append("tmp:" + name)

    # options ---------------------------------------------------------------
    def option_config(self, option: str, value: Value, node: ast.AST) -> None:
        scope = self.scopes[-1]
        self.facts.options.append(
            OptionFact("config", {option: value}, None, span_of(node, self._numbers), scope.qualname, scope.next_order(),
                       scope.loop_depth, bool(scope.guards), path=tuple(scope.path), restores=scope.restoring)  # fmt: skip
        )
        if option == "kernel_cache_dir":
            if value.kind == "call" and value.data.startswith("tempfile."):
                self.cache("temp_cache_dir", value, node)
            elif value.kind in ("name", "local", "param", "attr"):
                self.facts.cache_dir_names.append(str(value.data))
        if option == "cache_kernels" and value == const(False):
            self.cache("cache_kernels_off", None, node)

    def option_module(self, options_node: ast.AST | None, target_node: ast.AST | None, node: ast.AST,
                      via_get_module: bool = False, set_by_call: bool = False) -> None:  # fmt: skip
        scope = self.scopes[-1]
        options: dict[str, Value] = {}
        if isinstance(options_node, ast.Dict):
            for key, item in zip(options_node.keys, options_node.values):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    options[key.value] = self.value(item)
                else:
                    options["*"] = UNKNOWN
        elif isinstance(options_node, ast.Call) and self.dotted(options_node.func) == "dict":
            for keyword in options_node.keywords:
                options[keyword.arg or "*"] = self.value(keyword.value)
        else:
            options["*"] = self.value(options_node)
        target = None
        if target_node is not None:
            if isinstance(target_node, ast.Call) and self.warp_name(target_node.func) == "warp.get_module":
                inner = call_argument(target_node, "name", 0)
                target = self.value(inner) if inner is not None else Value("name", "__name__")
            else:
                target = self.value(target_node)
        self.facts.options.append(
            OptionFact("module_options", options, target, span_of(node, self._numbers), scope.qualname, scope.next_order(),
                       scope.loop_depth, bool(scope.guards), via_get_module, path=tuple(scope.path),
                       restores=scope.restoring, set_by_call=set_by_call,
                       spread=set_by_call and any(k.arg is None for k in node.keywords))  # type: ignore[attr-defined]  # fmt: skip
        )

    def options_item(self, target: ast.Subscript, value: Value, node: ast.AST) -> None:
        """``wp.get_module(m).options["x"] = v`` and ``os.environ["CUDA_CACHE_DISABLE"] = "1"``."""
        base = target.value
        key = target.slice.value if isinstance(target.slice, ast.Constant) else None
        if isinstance(base, ast.Attribute) and base.attr == "options" and isinstance(base.value, ast.Call):
            if self.warp_name(base.value.func) == "warp.get_module":
                inner = call_argument(base.value, "name", 0)
                scope = self.scopes[-1]
                self.facts.options.append(
                    OptionFact("module_options", {key if isinstance(key, str) else "*": value},
                               self.value(inner) if inner is not None else None, span_of(node, self._numbers), scope.qualname,
                               scope.next_order(), scope.loop_depth, bool(scope.guards), path=tuple(scope.path),
                               restores=scope.restoring)  # fmt: skip
                )
        elif self.dotted(base) == "os.environ" and key == "CUDA_CACHE_DISABLE":
            self.cache("cuda_cache_disable", None, node)
        elif self.dotted(base) == "os.environ" and key == "WARP_CACHE_PATH" and value.kind in ("name", "local", "param", "attr"):
            self.facts.cache_dir_names.append(str(value.data))

    def cache(self, kind: str, target: Value | None, node: ast.AST) -> None:
        scope = self.scopes[-1]
        self.facts.caches.append(CacheFact(kind, target, span_of(node, self._numbers), scope.qualname, scope.next_order(), bool(scope.guards)))

    def mark_differentiates(self) -> None:
        self.facts.differentiates = True
        scope = self.scopes[-1]
        if scope.fact is not None:
            scope.fact.differentiates = True


# ----------------------------------------------------------------------------- helpers


# Assignment targets whose assignment the facts keep, wherever it is (``wp.config.x = v``,
# ``get_module(m).options[k] = v``).
_HOLDER_TARGETS = frozenset({ast.Attribute, ast.Subscript})
# Expression nodes with no calls below them.
_LEAVES = frozenset({ast.Name, ast.Constant, ast.Load, ast.Store, ast.Del})
# Expression class -> its fields that hold expressions (each a node, None, or a list of
# them), in field order: what ``_children`` gives, without building a list per node.
_EXPR_CHILDREN: dict[type, tuple[str, ...]] = {
    ast.Tuple: ("elts",), ast.List: ("elts",), ast.Set: ("elts",), ast.Compare: ("left", "comparators"),
    ast.UnaryOp: ("operand",), ast.JoinedStr: ("values",), ast.BoolOp: ("values",),
    ast.FormattedValue: ("value", "format_spec"), ast.Slice: ("lower", "upper", "step"),
    ast.IfExp: ("test", "body", "orelse"), ast.Dict: ("keys", "values"), ast.Starred: ("value",),
    ast.Await: ("value",), ast.Yield: ("value",), ast.YieldFrom: ("value",),
}  # fmt: skip
_COMPREHENSIONS = frozenset({ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp})
_STMT_METHODS: dict[type, Any] = {}  # statement class -> _Extractor method (stmt_<Class> or generic)
# The last part of every callee ``_Extractor.other_call`` looks at: any other call skips it.
# Decorators that never make a function a kernel (``FileFacts.decorated`` skips them).
_NOT_KERNEL_DECORATORS = frozenset({
    "property", "staticmethod", "classmethod", "abstractmethod", "overload", "cached_property", "wraps",
})  # fmt: skip
_NOT_KERNEL_DECORATOR_ROOTS = (
    "functools.", "contextlib.", "pytest.", "unittest.", "typing.", "typing_extensions.", "abc.", "dataclasses.",
    "torch.", "jax.", "numba.", "numpy.", "click.", "atexit.", "builtins.", "enum.", "warnings.", "deprecated",
)  # fmt: skip
# Methods that put values into a list or a dict (``FileFacts``' tables record what they add).
_LIST_STORES = frozenset({"append", "extend", "insert"})
_CONTAINER_STORES = frozenset({"setdefault", "__setitem__", "update", *_LIST_STORES})
_OTHER_CALL_NAMES = frozenset({
    "setdefault", "__setitem__", "backward", "update", "setattr", "rmtree", "rmdir", "removedirs", "register", "putenv",
    "append", "extend", "insert",
})  # fmt: skip
# Calls a function's facts need not keep: builtins and numpy/math never run project code, and
# a tape over them records nothing (a fifth of newton's calls, with every argument's value).
# (A subset of program._TAPE_HARMLESS_BUILTINS: what a tape block may call without hiding anything.)
_BUILTIN_CALLS = frozenset({
    "len", "range", "print", "int", "float", "str", "abs", "min", "max", "sum", "zip", "enumerate",
    "isinstance", "list", "tuple", "dict",
})  # fmt: skip


# One read-only empty mapping and one empty tuple for every function's empty tables: most
# functions assign no ``self.x``, loop over nothing and return nothing (a tenth of the
# facts' objects). Read-only, so a mistaken write fails instead of changing every function.
class _EmptyTable(dict):
    """An empty dict no one may fill (pickled as the one shared instance)."""

    __slots__ = ()

    def _read_only(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a shared empty table of the facts is read-only")

    __setitem__ = __delitem__ = setdefault = update = pop = popitem = clear = __ior__ = _read_only  # type: ignore[assignment]

    def __reduce__(self) -> str:
        return "_EMPTY_TABLE"


_EMPTY_TABLE: Any = _EmptyTable()
_NO_BRANCHES: frozenset[int] = frozenset()


# The words of a test that picks a value per device (``1 if device == "cpu" else 256``).
DEVICE_WORDS = ("cuda", "cpu", "device", "gpu")


def _first_pass_test(test: ast.expr) -> bool:
    """``i == 0``, ``not step``, ``first`` / ``self.is_first``: a test a loop passes on its first pass."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        return any(isinstance(side, ast.Constant) and side.value == 0 and not isinstance(side.value, bool)
                   for side in (test.left, test.comparators[0]))  # fmt: skip
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return isinstance(test.operand, (ast.Name, ast.Attribute))
    name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else ""
    return "first" in name.lower()


def _share_empty_containers(fact: FunctionFact) -> None:
    if not fact.defaults:
        fact.defaults = _EMPTY_TABLE
    if not fact.default_spans:
        fact.default_spans = _EMPTY_TABLE
    if not fact.locals:
        fact.locals = _EMPTY_TABLE
    if not fact.self_attrs:
        fact.self_attrs = _EMPTY_TABLE
    if not fact.loop_tables:
        fact.loop_tables = _EMPTY_TABLE
    if not fact.returns:
        fact.returns = ()  # type: ignore[assignment]
    fact.loops = tuple(fact.loops)  # type: ignore[assignment]  # () is one shared object


def call_argument(node: ast.Call, name: str, position: int | None = None) -> ast.expr | None:
    """The argument a call passes for parameter ``name`` (keyword, or at ``position`` when
    no ``*args`` comes before it); None when it passes none."""
    for keyword in node.keywords:
        if keyword.arg == name:
            return keyword.value
    if position is not None and len(node.args) > position and not any(
        isinstance(a, ast.Starred) for a in node.args[: position + 1]
    ):
        return node.args[position]
    return None


def _as_warp_name(name: str | None) -> str | None:
    """A dotted name under ``warp``, with the private paths of public names shortened
    (``warp._src.context.launch`` -> ``warp.launch``); None for other names."""
    if name and name.startswith("warp") and (len(name) == 4 or name[4] == "."):
        if name.startswith("warp._src.") or name.startswith("warp.context."):
            for old in ("warp._src.context.", "warp.context.", "warp._src.types.", "warp._src."):
                if name.startswith(old):
                    return "warp." + name[len(old):]
        return name
    return None


# With ``_BUILTIN_CALLS``: calls that never run project code (``_Extractor.call`` drops them).
_NEVER_PROJECT_ROOTS = ("numpy.", "math.")


# Calls that never reach project code either, but that a tape does not know to be harmless
# (kept inside ``with wp.Tape():`` blocks, where an unknown call makes the tape opaque):
# exceptions raised, introspection, and the standard library's modules.
_LIBRARY_BUILTINS = frozenset({
    "ValueError", "TypeError", "RuntimeError", "KeyError", "IndexError", "NotImplementedError", "AssertionError",
    "AttributeError", "Exception", "getattr", "hasattr", "bool", "set", "type", "sorted", "reversed", "any", "all",
    "repr", "round", "iter", "next", "id", "callable", "hash", "divmod", "frozenset",
})  # fmt: skip
_LIBRARY_ROOTS = (
    "os.", "sys.", "re.", "json.", "logging.", "warnings.", "pathlib.", "subprocess.", "ctypes.", "typing.",
    "collections.", "itertools.", "inspect.", "traceback.", "textwrap.", "string.", "unittest.", "argparse.",
)  # fmt: skip

# ``with`` contexts that are neither a tape nor a project's context manager (``with
# wp.ScopedDevice(d):``, ``with torch.no_grad():``, ``with open(p) as f:``): no ``WithFact``.
_NO_TAPE_CONTEXT_ROOTS = ("warp.", *_NOT_KERNEL_DECORATOR_ROOTS, *_LIBRARY_ROOTS, "tempfile.", "threading.", "tqdm.")
_NO_TAPE_CONTEXTS = frozenset({"open", "print", "zip", "range", "enumerate"})

# Node class -> its fields that can hold nodes (``ast.iter_child_nodes`` without its two
# generator layers and the fields that never hold one: a third of the extraction's time).
_NODE_FIELDS: dict[type, tuple[str, ...]] = {}


def _children(node: ast.AST) -> list[ast.AST]:
    cls = node.__class__
    fields = _NODE_FIELDS.get(cls)
    if fields is None:
        fields = _NODE_FIELDS[cls] = tuple(
            name for name in cls._fields
            if name not in ("ctx", "op", "ops", "type_comment", "kind", "id", "attr", "arg", "value", "conversion")
            or name == "value" and cls is not ast.Constant
        )
    out: list[ast.AST] = []
    for name in fields:
        child = getattr(node, name, None)
        if child is None:
            continue
        if isinstance(child, list):
            out.extend(item for item in child if isinstance(item, ast.AST))
        elif isinstance(child, ast.AST):
            out.append(child)
    return out


def _text(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001 - odd trees from fuzzed input
        return "?"


def _is_private(attr: str) -> bool:
    """``_name``: private by convention (not ``__name``, which Python mangles, nor ``__x__``)."""
    return attr.startswith("_") and not attr.startswith("__") and len(attr) > 1


def _stored(entry: Value, function: str | None) -> Value:
    """A global table's entry as a function stores it (``_CACHE[key] = wp.overload(kernel,
    sig)`` in a cached getter): ``stored`` keeps the function its parameters belong to."""
    return entry if function is None else Value("stored", function, (entry,))


def _decorator_target(decorator: ast.expr) -> ast.expr:
    return decorator.func if isinstance(decorator, ast.Call) else decorator


def _params(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    if args.vararg:
        names.append(args.vararg.arg)
    if args.kwarg:
        names.append(args.kwarg.arg)
    return tuple(names)


def _defaults(node: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, ast.expr]:
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    out: dict[str, ast.expr] = {}
    for arg, default in zip(positional[len(positional) - len(args.defaults):], args.defaults):
        out[arg.arg] = default
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        if default is not None:
            out[arg.arg] = default
    return out


def unpacked_item(value: Value, index: int, count: int) -> Value:
    """What position ``index`` of ``count`` names bound by unpacking ``value`` holds: the item
    of a tuple literal of as many items; an element of what a comprehension makes (``self._b,
    self._x = (wp.zeros(n, dtype=dtype) for _ in range(2))``: each name is one of them); else
    the value indexed."""
    if value.kind == "tuple" and value.data == COMPREHENSION:
        return Value("elem", None, (value,))
    if value.kind == "tuple" and len(value.items) == count:
        return value.items[index]
    return Value("sub", None, (value, const(index)))


def _bind_targets(target: ast.AST, value: Value, table: dict[str, Any], single: bool = False) -> None:
    """Record what ``target = value`` binds: a list of values per name, or (``single``, for
    loop targets) the one element expression per name."""
    if isinstance(target, ast.Name):
        if single:
            table[target.id] = value
        else:
            table.setdefault(target.id, []).append(value)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for index, element in enumerate(target.elts):
            if isinstance(element, ast.Starred):
                _bind_targets(element.value, UNKNOWN, table, single)
                continue
            _bind_targets(element, unpacked_item(value, index, len(target.elts)), table, single)
    elif isinstance(target, ast.Starred):
        _bind_targets(target.value, UNKNOWN, table, single)


def _assigned_names(body: list[ast.stmt]) -> frozenset[str]:
    """The plain names the statements assign (nested definitions left out)."""
    names: set[str] = set()
    stack = list(body)
    while stack:
        stmt = stack.pop()
        cls = stmt.__class__
        if cls is ast.Assign:
            targets = stmt.targets  # type: ignore[attr-defined]
        elif cls is ast.AugAssign or cls is ast.AnnAssign and stmt.value is not None:  # type: ignore[attr-defined]
            targets = [stmt.target]  # type: ignore[attr-defined]
        elif cls in _BLOCK_STATEMENTS:
            for name in ("body", "orelse", "finalbody", "handlers", "cases"):
                stack.extend(getattr(stmt, name, ()))
            continue
        elif cls is ast.ExceptHandler or cls is ast.match_case:
            stack.extend(stmt.body)  # type: ignore[attr-defined]
            continue
        else:
            continue
        for target in targets:
            if target.__class__ is ast.Name:
                names.add(target.id)  # type: ignore[attr-defined]
            elif target.__class__ is ast.Tuple or target.__class__ is ast.List:
                names.update(e.id for e in target.elts if e.__class__ is ast.Name)  # type: ignore[attr-defined]
    return frozenset(names)


_BLOCK_STATEMENTS = frozenset({ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try,
                               getattr(ast, "TryStar", ast.Try), ast.Match})  # fmt: skip


def _terminates(body: list[ast.stmt]) -> bool:
    """The block always leaves: it ends in return/raise/continue/break or ``sys.exit()``."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise, ast.Continue, ast.Break)):
        return True
    return isinstance(last, ast.Expr) and isinstance(last.value, ast.Call) and _EXIT_CALL_TEXT.get(
        last.value.func.__class__, lambda f: False)(last.value.func)


# ``sys.exit(0)``, ``exit()``, ``quit()``, ``os._exit(1)`` (by their written names: an alias of
# ``sys`` is rare in an entry point, and a miss only keeps the rest of the block on both arms).
_EXIT_CALL_TEXT: dict[type, Any] = {
    ast.Name: lambda f: f.id in ("exit", "quit"),
    ast.Attribute: lambda f: isinstance(f.value, ast.Name) and (f.value.id, f.attr) in (("sys", "exit"), ("os", "_exit")),
}


def exclusive(a: tuple[tuple[int, int], ...], b: tuple[tuple[int, int], ...]) -> bool:
    """Two paths that take different arms of one branch: never both in one pass."""
    arms = dict(a)
    return any(branch in arms and arms[branch] != arm for branch, arm in b)


def _is_main_guard(test: ast.expr) -> bool:
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.comparators) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )


def _is_cache_guard(test: ast.expr) -> bool:
    """``if key not in cache``, ``if self._k is None``, ``if x != self._x`` (a value change),
    ``if not hasattr(self, ...)``, ``if self._k is None or ...``: the guarded code runs only
    when something changed, not on every call."""
    if isinstance(test, ast.BoolOp):
        return any(_is_cache_guard(v) for v in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = test.operand
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "hasattr":
            return True
        return isinstance(inner, (ast.Attribute, ast.Name, ast.Subscript))
    if isinstance(test, ast.Compare):
        for op, right in zip(test.ops, test.comparators):
            if isinstance(op, (ast.NotIn, ast.In)):
                return True
            if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(right, ast.Constant) and right.value is None:
                return True
            if isinstance(op, (ast.NotEq, ast.Eq)) and (_is_attribute(test.left) or _is_attribute(right)):
                return True
    return False


def _is_attribute(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute)


def _free_names(func: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[set[str], set[str]]:
    """(names a kernel body reads that it does not bind itself (candidates for captures),
    those of them it calls)."""
    bound = set(_params(func))
    read: set[str] = set()
    called: set[str] = set()
    name, store, call = ast.Name, ast.Store, ast.Call
    stack: list[ast.AST] = [func]  # every node below, as ``ast.walk`` (without its generators)
    while stack:
        node = stack.pop()
        if node.__class__ is name:
            if node.ctx.__class__ is store:  # type: ignore[attr-defined]
                bound.add(node.id)  # type: ignore[attr-defined]
            else:
                read.add(node.id)  # type: ignore[attr-defined]
        else:
            if node.__class__ is call and node.func.__class__ is name:  # type: ignore[attr-defined]
                called.add(node.func.id)  # type: ignore[attr-defined]
            stack.extend(_children(node))
    for arg in func.args.args + func.args.kwonlyargs + func.args.posonlyargs:
        if arg.annotation is not None:
            stack.append(arg.annotation)
            while stack:
                node = stack.pop()
                if node.__class__ is name:
                    read.add(node.id)  # type: ignore[attr-defined]
                else:
                    stack.extend(_children(node))
    return read - bound, called - bound


_ARRAY_TYPES = {"warp.array", "warp.array1d", "warp.array2d", "warp.array3d", "warp.array4d", "warp.indexedarray",
                "warp.fabricarray", "warp.indexedfabricarray"}  # fmt: skip


def _is_generic(func: ast.FunctionDef | ast.AsyncFunctionDef, extractor: _Extractor) -> bool:
    """Some parameter's type is left open: ``Any``, or an array annotation without a dtype
    (``wp.array(ndim=2)``: its dtype defaults to ``Any``)."""
    for arg in func.args.args + func.args.kwonlyargs + func.args.posonlyargs:
        annotation = arg.annotation
        if annotation is None:
            continue
        if isinstance(annotation, ast.Call) and extractor.warp_name(annotation.func) in _ARRAY_TYPES:
            if not annotation.args and not any(k.arg == "dtype" for k in annotation.keywords):
                return True
        if _names_any(annotation, extractor):
            return True
    return False


def _names_any(node: ast.AST, extractor: _Extractor) -> bool:
    """``Any`` somewhere in an annotation (``wp.array(dtype=Any)``, ``typing.Any``...)."""
    if isinstance(node, (ast.Name, ast.Attribute)):
        if extractor.dotted(node) in ("typing.Any", "warp.Any", "Any", "warp.types.Any"):
            return True
        if isinstance(node, ast.Name) and node.id in extractor.any_aliases:
            return True  # ``vec3 = Any`` at module scope, then ``wp.array(dtype=vec3)``
        return isinstance(node, ast.Attribute) and _names_any(node.value, extractor)
    if isinstance(node, ast.Call):
        return any(_names_any(a, extractor) for a in node.args) or any(
            _names_any(k.value, extractor) for k in node.keywords
        )
    if isinstance(node, ast.Subscript):
        return _names_any(node.value, extractor) or _names_any(node.slice, extractor)
    if isinstance(node, (ast.Tuple, ast.List)):
        return any(_names_any(e, extractor) for e in node.elts)
    if isinstance(node, ast.BinOp):  # ``int | Any``
        return _names_any(node.left, extractor) or _names_any(node.right, extractor)
    return False


__all__ = [
    "CacheFact", "CallFact", "FileFacts", "FunctionFact", "KernelFact", "LaunchFact", "OptionFact",
    "Span", "UNKNOWN", "Value", "const", "extract", "span_of",
]  # fmt: skip
