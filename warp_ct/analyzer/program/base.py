"""What the program model's questions are about: references to functions and kernels, events of a flow,
how often code runs, and the helpers every part of the model shares."""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from typing import Any, Iterable

from warp_ct.analyzer.facts import (
    CallFact,
    FunctionFact,
    Value,
    exclusive,
)

UNIQUE = "unique"
# A kernel ``warp.fem.cache.dynamic_kernel`` makes: a Warp module of its own per distinct
# (function, suffix, kernel_options), named ``<file module>.dyn.<name>_<hash>`` and kept in
# warp.fem's process-wide cache (a second decoration with the same suffix defines nothing).
DYNAMIC = "fem.dynamic"


MAX_DEPTH = 12  # how far values and effects are followed through calls


_NO_CUT = 1 << 30  # effects(): no recursion cut the flow short


# Methods and functions that, by the conventions of simulation and ML code, run many times:
# a simulator's step, a model's forward, a pipeline's run, a callback.
HOT_NAMES = frozenset({
    "run", "step", "forward", "__call__", "update", "simulate", "integrate", "advance", "tick",
    "render", "solve", "apply", "evaluate", "compute", "backward", "predict", "rollout", "iterate",
    "process", "execute", "train_step", "sample", "collide", "on_step", "on_frame", "frame", "record",
})  # fmt: skip


ONCE_NAMES = frozenset({"main", "cli", "setup", "configure", "init", "initialize", "setup_tests"})


class Freq(enum.IntEnum):
    """How often a function's body runs in a process, ordered by cost."""

    UNCALLED = 0  # nothing in the project calls it: a public API or a callback; unknown
    IMPORT = 1  # at import (module level)
    ONCE = 2  # once per process: an entry point, main(), a test
    PER_OBJECT = 3  # once per object: a constructor
    UP_FRONT = 4  # many times while setting up: a loop that makes things and launches nothing
    HOT = 5  # many times: a step/run/forward method, a loop that launches


@dataclass(slots=True, unsafe_hash=True)  # not frozen: a frozen __init__ costs 7x
class Frequency:
    freq: Freq
    why: str  # "`Pipeline.run()` runs on every call", "called in a loop in `main()` (line 40)"


@dataclass(slots=True, unsafe_hash=True)  # not frozen: a frozen __init__ costs 7x
class FunctionRef:
    module: str
    qualname: str

    def __str__(self) -> str:
        return self.qualname


@dataclass(slots=True, unsafe_hash=True)  # not frozen: a frozen __init__ costs 7x
class KernelRef:
    module: str  # the Python module that defines it
    index: int  # into that module's ``facts.kernels``


@dataclass(frozen=True, slots=True)
class ImportDefinition:
    """A Warp definition that importing a module creates (``Program.import_definitions``)."""

    line: int
    name: str  # the kernel, function or struct; for ``call``, the callee
    kind: str  # "kernel" | "func" (a Warp function) | "struct" | "call" (a call that defines kernels)


@dataclass(slots=True, unsafe_hash=True)  # not frozen: a frozen __init__ costs 7x
class Event:
    """One Warp-relevant step of a flow, in order, with where it happens."""

    kind: str  # "load" | "options" | "define" | "generic_launch"
    warp_modules: frozenset[str]  # the Warp module identities it concerns ("unique:<k>" for unique ones)
    site_module: str  # the Python module whose line it is
    span: tuple[int, int, int, int]
    # The call chain from the flow root, as a linked list: () in the root itself, else
    # (first link, rest of the chain); a link is (calling module, call span, callee
    # qualname, callee module). ``via[0]`` is the root's own call; see ``innermost_call``.
    via: tuple
    detail: Any = None
    # The if/match arms it sits in, in the flow root's own code (for an event of a callee:
    # those of the call). Events on different arms of one branch never run in one pass.
    path: tuple[tuple[int, int], ...] = ()

    def exclusive_with(self, other: "Event") -> bool:
        return exclusive(self.path, other.path)

    @property
    def own(self) -> "Event":
        return self

    @property
    def first_link(self) -> tuple | None:
        """``via[0]`` without building the chain: the root's own call, None in the root."""
        return self.via[0] if self.via else None


class CalleeEvent:
    """A callee's event as a caller's flow sees it: the callee's own event shared, the call
    that runs it, and the caller's arms. Inlining a callee into each of its callers makes
    one of these per event (under half the memory of a copy with its chain: 67 -> 26 MiB over
    the three corpora)."""

    __slots__ = ("own", "inner", "link", "path")

    def __init__(self, inner: "Event | CalleeEvent", link: tuple[str, tuple[int, int, int, int], str, str],
                 path: tuple[tuple[int, int], ...]) -> None:  # fmt: skip
        self.own: Event = inner.own
        self.inner = inner
        self.link = link  # (calling module, call span, callee qualname, callee module)
        self.path = path

    kind = property(lambda self: self.own.kind)
    warp_modules = property(lambda self: self.own.warp_modules)
    site_module = property(lambda self: self.own.site_module)
    span = property(lambda self: self.own.span)
    detail = property(lambda self: self.own.detail)

    @property
    def via(self) -> tuple:
        return (self.link, self.inner.via)

    @property
    def first_link(self) -> tuple:
        return self.link

    def exclusive_with(self, other: "Event | CalleeEvent") -> bool:
        return exclusive(self.path, other.path)


_NO_TARGETS: tuple = ()  # what _call_targets answers for the calls that reach nothing


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNRESOLVED = _Unknown()


_UNRESOLVED_ONLY = (UNRESOLVED,)


def argument_passed(fact: FunctionFact, call: CallFact, param: str) -> Value | None:
    """The argument ``call`` passes for ``fact``'s parameter ``param`` (None: not passed)."""
    argument = call.kwargs.get(param)
    if argument is None:
        index = _positional_index(fact, param)
        if 0 <= index < len(call.args):
            argument = call.args[index]
    return argument


def _positional_index(fact: FunctionFact, param: str) -> int:
    """Where a call passes ``param`` positionally (a method's ``self``/``cls`` is not
    passed); -1 when it is not a parameter."""
    if param not in fact.params:
        return -1
    index = list(fact.params).index(param)
    if fact.class_name is not None and fact.params[0] in ("self", "cls"):
        index -= 1
    return index


def _collection_elements(value: Value) -> bool:
    """Whether the value reads the variable of a loop over a collection of settings
    (``for level in levels``), not over ``range(...)`` (time steps, iterations)."""
    if value.kind == "elem":
        iterated = value.items[0] if value.items else None
        return not (iterated is not None and iterated.kind == "call" and iterated.data == "range")
    return any(_collection_elements(item) for item in value.items)


# Calls inside a tape block that cannot launch project kernels: anything under these
# dotted roots, and these builtins by their exact name (not ``integrate`` for ``int``).
_TAPE_HARMLESS_ROOTS = ("warp.", "numpy.", "math.", "torch.", "tape.", "self.tape.", "time.")
_TAPE_HARMLESS_BUILTINS = frozenset({
    "print", "len", "range", "float", "int", "zip", "enumerate", "min", "max", "abs", "sum", "list", "tuple",
    "dict", "isinstance", "str", "super", "getattr", "hasattr",
})  # fmt: skip


_TAPE_HARMLESS_METHODS = ("zero_", "fill_", "assign", "numpy", "append", "item", "copy", "clone", "reshape",
                          "view", "flatten", "contiguous", "detach", "to", "cpu", "cuda", "sum", "mean")  # fmt: skip


_DTYPE_ALIASES = {
    "numpy.float32": "warp.float32", "numpy.float64": "warp.float64", "numpy.float16": "warp.float16",
    "numpy.int32": "warp.int32", "numpy.int64": "warp.int64", "numpy.uint32": "warp.uint32",
    "numpy.int8": "warp.int8", "numpy.uint8": "warp.uint8", "numpy.int16": "warp.int16", "numpy.bool_": "warp.bool",
    "warp.types.float32": "warp.float32", "warp.types.float64": "warp.float64", "warp.types.int32": "warp.int32",
}  # fmt: skip


_FLOAT_SUFFIXED = ("warp.vec", "warp.mat", "warp.quat", "warp.transform", "warp.spatial_vector", "warp.spatial_matrix")


def _identity(value: Any) -> Any:
    return value


_TEST_DIRS = ("tests", "test", "testing")


def is_test_path(path: str) -> bool:
    parts = path.replace("\\", "/").split("/")
    name = parts[-1]
    return (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
            or any(p in _TEST_DIRS for p in parts[:-1]))  # fmt: skip


def converted(values: Iterable[Any], convert: Any) -> list[Any]:
    """``convert`` (``int``, ``bool``, ...) applied to each of ``values``, as the program
    would: UNRESOLVED where the value is, or where the conversion fails."""
    out: list[Any] = []
    for item in values:
        try:
            out.append(UNRESOLVED if item is UNRESOLVED else convert(item))
        except (TypeError, ValueError):
            out.append(UNRESOLVED)
    return out


def path_in_project(path: str, root: str | None) -> str:
    """``path`` as its project sees it: relative to the project's root folder when it lies
    under it, else as given. Where a project lives (``~/tests/app``, ``/srv/examples/sim``)
    does not make its files tests or examples: ``is_test_path`` and ``is_demo_path`` read
    this, whether the paths came absolute (an editor's) or relative (``warp-ct lint .``)."""
    if not root:
        return path
    try:
        relative = os.path.relpath(os.path.realpath(path), root)
    except ValueError:  # another drive
        return path
    return path if relative == ".." or relative.startswith(".." + os.sep) else relative


def is_test_module(module: str) -> bool:
    """A test module by its name in its project (``pkg.tests.test_ops``, ``test_ops``,
    ``conftest``): unlike a path, it does not depend on where the project lives."""
    parts = module.split(".")
    name = parts[-1]
    return (name.startswith("test_") or name.endswith("_test") or name == "conftest"
            or any(p in _TEST_DIRS for p in parts[:-1]))  # fmt: skip


_DEMO_DIRS = ("examples", "example", "benchmarks", "benchmark", "docs", "tutorials", "notebooks")


def is_demo_path(path: str) -> bool:
    """An example, benchmark or tutorial shipped beside a library: its users' code, not the
    library's own entry point."""
    parts = path.replace("\\", "/").split("/")
    return any(p in _DEMO_DIRS for p in parts[:-1]) or parts[-1].startswith(("example_", "bench_"))


def _module_key(module: Any) -> str:
    if isinstance(module, tuple):
        return f"{module[0]}:{module[1]}.{module[2]}"
    return str(module)


def innermost_call(via: tuple) -> tuple[str, tuple[int, int, int, int], str, str]:
    """The last link of a non-empty call chain: the call that runs the event's own code."""
    link, rest = via
    while rest:
        link, rest = rest
    return link


class LoadHistory:
    """The loads seen so far while walking one flow's events, per Warp module."""

    def __init__(self) -> None:
        self._loads: dict[str, list[Event]] = {}

    def add(self, event: Event) -> None:
        for module in event.warp_modules:
            self._loads.setdefault(module, []).append(event)

    def loaded(self, module: str) -> bool:
        return module in self._loads

    def before(self, event: Event, modules: Iterable[str] | None = None) -> Event | None:
        """The earliest load of one of the event's modules that runs in the same pass
        (not on another arm of a branch). None as well when a load inside the same call
        precedes it: then the callee's own flow holds the pair and reports it there."""
        candidates = [
            load
            for module in (modules if modules is not None else event.warp_modules)
            for load in self._loads.get(module, ())
            if not load.exclusive_with(event)
        ]
        first = event.first_link  # the chain of an inlined event is built anew on each .via
        if first is not None and any(load.first_link == first for load in candidates):
            return None
        return candidates[0] if candidates else None


def module_key(module: Any) -> str:
    return _module_key(module)


def is_own_module_key(key: str) -> bool:
    """A module identity (``module_key``) of a kernel's module of its own (``module="unique"``,
    warp.fem's ``dynamic_kernel``): one per variant, which no other definition joins."""
    return key.startswith((f"{UNIQUE}:", f"{DYNAMIC}:"))
