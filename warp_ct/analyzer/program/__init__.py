"""The project model: the facts of every linted file joined into one Warp program.

The second of the analyzer's three layers. It answers the questions a rule needs and a
single file cannot: which Warp module a kernel lands in (the file's, a named
``module="pkg.x"``, a unique one), what a parameter's value is at the calls that matter
(defaults, call-site arguments in other files, tuples and loop tables), how often a
function runs (at import, once, once per object, on every step), which kernels a launch
can reach (a factory's return value, ``self.k``, ``kernels[dtype]``), and what a function
does to Warp in order, with its callees' effects inlined (loads, option changes, kernel
definitions). Every answer can be "unknown": rules then stay silent.

Everything is memoized per ``Program`` (built once per set of file facts).

One question per file: ``calls`` (where a call goes, who calls a function), ``frequency``
(how often it runs), ``values`` (what a value can be), ``kernels`` (which kernels an
expression holds, their Warp modules), ``effects`` (what a flow does to Warp, in order),
``runs`` (entry points and what they load), ``tapes`` (what is differentiated), ``fem``
(warp.fem's integrate/interpolate calls and the tapes that may record them);
``base`` holds the references, events and helpers they share. :class:`Program` joins them.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

from warp_ct.analyzer.facts import CallFact, FileFacts, Value
from warp_ct.analyzer.program.base import (
    _NO_CUT,
    DYNAMIC,
    HOT_NAMES,
    MAX_DEPTH,
    ONCE_NAMES,
    UNIQUE,
    UNRESOLVED,
    CalleeEvent,
    Event,
    Freq,
    Frequency,
    FunctionRef,
    ImportDefinition,
    KernelRef,
    LoadHistory,
    argument_passed,
    innermost_call,
    is_demo_path,
    is_own_module_key,
    is_test_module,
    is_test_path,
    module_key,
    path_in_project,
)
from warp_ct.analyzer.program.calls import Calls
from warp_ct.analyzer.program.effects import Effects
from warp_ct.analyzer.program.fem import FemCalls
from warp_ct.analyzer.program.frequency import Frequencies
from warp_ct.analyzer.program.kernels import Kernels, handed_kernel_params
from warp_ct.analyzer.program.runs import Runs
from warp_ct.analyzer.program.tapes import Tapes
from warp_ct.analyzer.program.values import Values
from warp_ct.analyzer.recursion import QueryMemo


class Program(Calls, Frequencies, Values, Kernels, Effects, Runs, Tapes, FemCalls):
    """The facts of a project's files joined: every question of the model, memoized. Each
    part answers one kind of question (see the module docstring); they share the state set
    up here."""

    def __init__(self, files: Iterable[FileFacts], previous: Program | None = None, *, reusable: bool = True,
                 root: str | None = None, outside: Callable[[str], FileFacts | None] | None = None) -> None:  # fmt: skip
        """``previous``: the program of the same files before an edit, whose answers that
        no edited file can change are taken over instead of computed again (see
        ``Calls.reusable_callers``); ``reusable``: keep what a next program could take over
        (not in a batch, whose file set is final); ``root``: the project's folder (real
        path), which the files' paths are read against (``project_path``); ``outside``: the
        facts of a module the project imports from outside it (``outside.OutsideModules``),
        which kernel questions read (``outside_kernels``) and nothing else."""
        self.root = root
        self._outside = outside
        self._project_paths: dict[str, str] = {}
        self.modules: dict[str, FileFacts] = {}
        for facts in files:
            self.modules[facts.module] = facts
        self._sources = dict(self.modules)  # the files' own facts (``modules`` gains helper launches)
        self._callers: dict[FunctionRef, list[tuple[FunctionRef | None, str, CallFact]]] | None = None
        # module -> calling function -> the callee of each of its calls (None: no project function)
        self._callers_by_module: dict[str, dict[str, list[FunctionRef | None]]] = {}
        # (module, function) with a call resolved through a loop table, and (module, function, callee) of it
        self._loop_resolving: set[tuple] = set()
        self._reusable = reusable
        self._reused_callers = self.reusable_callers(previous) if previous is not None else {}
        self._queries = QueryMemo()  # frequency, resolve, varies, dtypes, kernels, elements
        self._on_gpu = False  # resolve as a CUDA launch sees values (``resolve_on_gpu``)
        self._effects: dict[FunctionRef, tuple[Event, ...]] = {}
        self._shallow_effects: dict[FunctionRef, tuple[Event, ...]] = {}
        self._self_attrs: dict[tuple[str, str], dict[str, list[tuple[FunctionRef, Value]]]] = {}
        self._direct_imports: dict[str, frozenset[str]] = {}
        self._own_events_memo: dict[str, dict[str | None, list[tuple[float, list[Event]]]]] = {}
        self._partial_effects: dict[tuple[FunctionRef, bool], tuple[tuple[Event, ...], int]] = {}
        self._cut = _NO_CUT  # set by effects(): the stack depth a recursion in the last result was cut at
        self._launch_kernels: dict[tuple[str, int], tuple[KernelRef, ...]] = {}
        self._closures: dict[str, set[str]] = {}
        self._reached: dict[str, set[FunctionRef]] = {}
        self._memo: dict[str, Any] = {}
        # (module, caller qualname or None, callee) -> resolve_call's answer; None stands for
        # every caller whose scopes do not bind the callee's first name (``_binds``).
        self._resolved_calls: dict[tuple[str, str | None, str], FunctionRef | None] = {}
        self._hook_targets: dict[tuple[str, str], Sequence[FunctionRef]] = {}  # _call_targets' Class.apply hooks
        # (id of a callee's events, shallow) -> (those events, _first_occurrences of them);
        # the events are held so that their id is not reused.
        self._thinned: dict[tuple[int, bool], tuple[tuple, tuple]] = {}
        self._add_decorated_kernels()
        self._add_helper_launches()

    def project_path(self, module: str) -> str:
        """The path of ``module``'s file inside its project (``path_in_project``)."""
        found = self._project_paths.get(module)
        if found is None:
            found = self._project_paths[module] = path_in_project(self.modules[module].path, self.root)
        return found

    def memo(self, key: str, compute: Any) -> Any:
        """A program-wide answer (the model's or a rule's), computed once per program."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]


__all__ = [
    "DYNAMIC", "HOT_NAMES", "MAX_DEPTH", "ONCE_NAMES", "UNIQUE", "UNRESOLVED", "CalleeEvent", "Event", "Freq", "Frequency",
    "FunctionRef", "ImportDefinition", "KernelRef", "LoadHistory", "Program", "argument_passed", "handed_kernel_params", "innermost_call",
    "is_demo_path", "is_own_module_key", "is_test_module", "is_test_path", "module_key", "path_in_project",
]  # fmt: skip
