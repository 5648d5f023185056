"""WCT010 unused-backward.

Decided per Warp module (one Python file that defines kernels), from the whole project's
summaries: which kernels each file launches, which it differentiates (launched inside a
``wp.Tape`` or with ``adjoint=True``), and who turns backward code off or on.
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable

from warp_ct.analyzer.context import FileContext, KernelDecorator
from warp_ct.analyzer.facts import FemCallFact, FileFacts, KernelFact, const
from warp_ct.analyzer.model import Applicability, Severity, TextEdit
from warp_ct.analyzer.program import (
    Freq,
    FunctionRef,
    KernelRef,
    Program,
    is_demo_path,
    is_test_module,
    is_test_path,
    module_key,
)
from warp_ct.analyzer.query import QueryContext
from warp_ct.analyzer.rules.base import Rule
from warp_ct.analyzer.rules.wct013_unique_ignores_module_options import (
    bare_module_option_calls,
    dict_items,
)

if TYPE_CHECKING:
    from warp_ct.analyzer.project import FileSummary, Project  # noqa: F401

# Import-resolved calls of autodiff libraries that may run Warp's adjoints through code the
# model does not follow (``from jax import vjp; vjp(f, x)``, ``torch.func.vjp``). A
# ``vjp`` counts when the facts name the library's, not a project's own method of that name
# (``self.vjp(...)`` of a solver's hand-made adjoint); Warp's own ``wp.autograd.gradcheck`` /
# ``jacobian`` count (``FileFacts.warp_autograd``). A ``torch.autograd.Function`` whose
# ``backward`` launches hand-written kernels does not differentiate through Warp's adjoints:
# only a tape or an adjoint launch inside it would.
_AUTODIFF_ROOTS = ("jax.", "torch.func.", "functorch.")
_AUTODIFF_NAMES = frozenset({"grad", "vjp", "value_and_grad", "jacrev", "jacfwd", "grad_and_value"})
# Calls inside a ``with wp.Tape():`` body that cannot launch project kernels.
_HARMLESS_CALLS = {
    "print", "len", "range", "float", "int", "zip", "enumerate", "min", "max", "abs", "sum", "list", "tuple",
    "dict", "isinstance", "str", "numpy", "zero_", "fill_", "zeros", "zeros_like", "empty", "empty_like",
    "ones", "full", "array", "from_numpy", "synchronize", "ScopedTimer", "assign", "copy", "clone", "append",
    "reshape", "flatten", "view", "contiguous", "type", "getattr", "hasattr", "super", "iter", "next",
}  # fmt: skip
_HARMLESS_ROOTS = {"wp", "warp", "np", "numpy", "math", "tape", "self.assert", "test", "os", "time"}


@dataclass
class BackwardFacts:
    """What one file says about differentiation and backward options."""

    launched: set[str] = field(default_factory=set)  # names of the kernels launched (``step``, ``self.step``)
    differentiated: set[str] = field(default_factory=set)  # kernel names launched under a tape / adjoint
    opaque: bool = False  # differentiates through calls we cannot follow
    opaque_text: bool = False  # through JAX, gradcheck/jacobian, vjp: machinery the program model does not follow
    self_backward: bool | None = None  # bare set_module_options enable_backward literal
    self_backward_unknown: bool = False  # bare set_module_options with a non-literal dict
    by_name: dict[str, bool | None] = field(default_factory=dict)  # module name -> enable_backward set elsewhere
    global_off: bool = False  # wp.config.enable_backward = False
    wants_grad: bool = False  # asks for gradients (requires_grad, a tape's backward) without a tape of its own


def _file_taped(event: Any) -> bool:
    """The file's own reading of a launch's or call's ``with`` blocks (``LaunchFact.taped``)."""
    return event.taped


def _model_facts(ff: FileFacts, taped: Callable[[Any], bool] = _file_taped) -> BackwardFacts:
    """What a file's facts say of differentiation: the kernels it launches, those launched on
    a tape or with ``adjoint=True`` (by name; a kernel the facts cannot name — ``self.kernel``,
    a table entry — makes the file opaque, as a tape over a call the rule cannot follow
    does), autodiff machinery the model does not follow, and the ``enable_backward`` options
    the file sets for itself, for other modules by name, or for the whole program.
    ``taped``: whether a tape records a launch or call (the model's ``Program.taped``; the
    file's own reading where its ``with`` blocks need no other file). Facts of the code only:
    what comments and docstrings say decides nothing."""
    facts = BackwardFacts()
    facts.opaque = facts.opaque_text = ff.warp_autograd
    taped_anything = False
    for launch in ff.launches:
        if not launch.kind.startswith("launch"):
            continue
        launched = _launch_target_name(launch.kernel)
        if launched is not None:
            facts.launched.add(launched)
        adjoint = launch.adjoint is not None and not _is_false(launch.adjoint)
        if not (adjoint or taped(launch)):
            continue
        taped_anything = True
        name = _launched_name(launch.kernel)
        if name is None:
            facts.opaque = True
        else:
            facts.differentiated.add(name)
    scopes = [fact.calls for fact in ff.functions.values()]
    scopes.append([*ff.module_calls, *ff.main_calls])
    for calls in scopes:
        for call in calls:
            if call.callee.startswith(_AUTODIFF_ROOTS) and call.callee.rsplit(".", 1)[-1] in _AUTODIFF_NAMES:
                facts.opaque = facts.opaque_text = True
            if not taped(call):
                continue
            taped_anything = True
            if not _harmless_call(call.callee):
                facts.opaque = True
    for option in ff.options:
        value = option.options.get("enable_backward")
        if option.kind == "config":
            if value is not None and _is_false(value):
                facts.global_off = True
            continue
        if option.kind != "module_options" or option.restores:
            continue
        target = option.target
        own = target is None or (target.kind == "const" and target.data is None) or (
            target.kind == "name" and target.data == "__name__")  # fmt: skip
        literal = "*" not in option.options and not option.spread
        if own:
            if not literal or (value is not None and value.kind != "const"):
                facts.self_backward_unknown = True
            elif value is not None and isinstance(value.data, bool):
                facts.self_backward = value.data
        elif target.kind == "const" and isinstance(target.data, str) and (not literal or value is not None):
            facts.by_name[target.data] = value.data if value is not None and value.kind == "const" and isinstance(value.data, bool) else None
    # Gradients are asked for: a tape, a ``backward()``, an array made with
    # ``requires_grad=True``, or an adjoint handed to a caller's tape (``tape.record_func``).
    asks = ff.differentiates or ff.requires_grad or any(
        call.callee.endswith(".record_func") for function in ff.functions.values() for call in function.calls
    )
    if asks and not taped_anything and not facts.differentiated and not facts.opaque:
        facts.wants_grad = True  # gradients are requested, maybe by a tape in code we do not see
    return facts


def _launch_target_name(kernel: Any) -> str | None:
    """The last name of what a launch launches (``step``, ``kernels.step``, ``self.step``):
    the files that launch a kernel of a module's, by name (``_consumers``)."""
    if kernel is None or not isinstance(kernel.data, str):
        return None
    if kernel.kind in ("name", "param", "local"):
        return kernel.data.rsplit(".", 1)[-1]
    return kernel.data if kernel.kind == "attr" else None


def _launched_name(kernel: Any) -> str | None:
    """The name a launch's kernel goes by (``step``, ``kernels.step``, a parameter ``k``),
    None where the facts cannot name it (``self.kernel``, ``KERNELS[i]``, a call)."""
    if kernel is None or kernel.kind not in ("name", "param", "local") or not isinstance(kernel.data, str):
        return None
    if kernel.data.split(".", 1)[0] in ("self", "cls"):
        return None
    return kernel.data.rsplit(".", 1)[-1]


def _harmless_call(callee: str) -> bool:
    """A call inside a tape block that cannot launch project kernels: builtins, Warp, NumPy,
    asserts, constructors of value types."""
    last = callee.rsplit(".", 1)[-1]
    root = callee.split(".", 1)[0]
    if callee.endswith(".__get__"):
        return True  # a property read: the launch that uses it is the fact
    return (last in _HARMLESS_CALLS or root in _HARMLESS_ROOTS or root in ("numpy", "warp") or last.startswith("assert")
            or (last[:1].isupper() and "." not in callee))  # fmt: skip


# ---------------------------------------------------------------------- project decision


def _turns_backward_on(ff: FileFacts) -> bool:
    """Some place the tree check may turn off (``_explicit_true``): a kernel decorator's
    ``enable_backward=True`` (or a parameter that may default to it), or the file's own
    ``set_module_options({"enable_backward": True})``."""
    for kernel in ff.kernels:
        value = kernel.enable_backward
        if value is not None and (value.kind == "param" or (value.kind == "const" and value.data is True)):
            return True
    for option in ff.options:
        value = option.options.get("enable_backward")
        if option.kind == "module_options" and value is not None and value.kind == "const" and value.data is True:
            return True
    return False


def _may_have_live_kernels(ff: FileFacts) -> bool:
    """Some kernel that may generate backward code: one without ``module=`` and without
    ``enable_backward=False`` (the file's module), or a unique one that sets neither
    ``enable_backward`` nor ``module_options`` (a module of its own)."""
    for kernel in ff.kernels:
        if kernel.decorator != "kernel":
            continue
        if kernel.module is None:
            if not _is_false(kernel.enable_backward):
                return True
        elif _unique_fact_with_backward(kernel):
            return True
    return False


@dataclass
class _Verdict:
    differentiated: set[str]  # module names something differentiates (or may)
    global_off: set[str]  # modules whose text turns backward code off (``wp.config.enable_backward = False``)
    configured: dict[str, bool | None]  # module name -> enable_backward set from another file
    launchers: dict[str, list["FileSummary"]]  # kernel name -> files that launch a kernel of that name
    # files that ask for gradients with no tape of its own (``requires_grad=True``): a
    # caller's tape may differentiate what they run; the program model decides which
    wants_grad: set[str] = field(default_factory=set)
    # modules reachable from files that differentiate through JAX, gradcheck/jacobian, vjp
    text_differentiated: set[str] = field(default_factory=set)


_NOTHING = BackwardFacts()


def _facts(project: "Project", summary: "FileSummary") -> BackwardFacts:
    """The file's backward facts (``_model_facts``), once per program. A file that touches
    no Warp and imports no project module (not in the model) launches, tapes and
    configures nothing."""
    if not project.in_program(summary):
        return _NOTHING
    program = project.program()

    def compute() -> BackwardFacts:
        ff = project.facts(summary)
        # ``with suspended_tape():``: the model tells what another file's context manager is.
        return _model_facts(ff, program.taped if _reads_other_files(ff) else _file_taped)

    return program.memo(f"wct010-facts:{summary.path}", compute)


def _reads_other_files(ff: FileFacts) -> bool:
    """Some launch or call of the file sits in a ``with`` block only the model can read (a
    context manager or a value: a tape, a suspension of one, or neither)."""
    for launch in ff.launches:
        if any(w.kind != "tape" for w in launch.withs):
            return True
    for calls in (*(f.calls for f in ff.functions.values()), ff.module_calls, ff.main_calls):
        for call in calls:
            if any(w.kind != "tape" for w in call.withs):
                return True
    return False


def _reachable(
    project: "Project", summary: "FileSummary", imports: dict[int, list["FileSummary"]] | None = None
) -> list["FileSummary"]:
    """``summary`` and the project modules it imports, transitively. ``imports`` memoises
    ``imported_project_modules`` (by summary id) over one verdict."""
    seen: dict[str, FileSummary] = {summary.module_name: summary}
    stack = [summary]
    while stack:
        current = stack.pop()
        if imports is None:
            deps = project.imported_project_modules(current)
        else:
            deps = imports.get(id(current))
            if deps is None:
                deps = imports[id(current)] = project.imported_project_modules(current)
        for dep in deps:
            if dep.module_name not in seen:
                seen[dep.module_name] = dep
                stack.append(dep)
    return list(seen.values())


# id(project) -> (its revision and summaries when decided, the verdict). The gate asks once
# per kernel file: a project whose revision did not move has the same summaries (a changed
# file gets a new summary and moves it); otherwise the summaries are compared by identity
# (the held list keeps them, and so their ids, alive). The verdict holds summaries
# (``launchers``), so the model's ``generation``, which an edit in a comment keeps, is not enough.
_CACHE: dict[int, tuple[int, list, _Verdict]] = {}


def project_verdict(project: "Project") -> _Verdict:
    cached = _CACHE.get(id(project))
    if cached is not None and cached[0] == project.revision and len(cached[1]) == len(project.files):
        if cached[1] and cached[1][0] is next(iter(project.files.values())):
            return cached[2]
    key = list(project.files.values())
    if cached is not None and len(cached[1]) == len(key) and all(map(operator.is_, cached[1], key)):
        _CACHE[id(project)] = (project.revision, cached[1], cached[2])
        return cached[2]
    imports: dict[int, list[FileSummary]] = {}
    differentiated: set[str] = set()
    configured: dict[str, bool | None] = {}
    global_off: set[str] = set()
    launchers: dict[str, list[FileSummary]] = {}
    maybe: set[str] = set()
    text_differentiated: set[str] = set()
    for summary in project.files.values():
        facts = _facts(project, summary)
        for name in facts.launched:
            launchers.setdefault(name, []).append(summary)
        if facts.global_off:
            global_off.add(summary.module_name)
        for name, value in facts.by_name.items():
            configured[name] = value if configured.get(name, value) == value else None
        if facts.wants_grad:
            maybe.add(summary.module_name)
        if not facts.opaque and not facts.differentiated:
            continue
        reach = _reachable(project, summary, imports)
        if facts.opaque:
            differentiated.update(s.module_name for s in reach)
            if facts.opaque_text:
                text_differentiated.update(s.module_name for s in reach)
            continue
        known = set().union(*(dep.kernel_names for dep in reach))
        if facts.differentiated - known:
            # a tape launches ``kernel_16 = make_kernel(...)`` or similar: cannot tell which module
            differentiated.update(s.module_name for s in reach)
            continue
        for dep in reach:
            if facts.differentiated & set(dep.kernel_names):
                differentiated.add(dep.module_name)
    verdict = _Verdict(differentiated, global_off, configured, launchers, maybe, text_differentiated)
    _CACHE[id(project)] = (project.revision, key, verdict)
    return verdict


def _consumers(project: "Project", summary: "FileSummary", verdict: _Verdict) -> list["FileSummary"]:
    """Project files that launch a kernel of ``summary``'s module: by name, or as the model resolves it."""
    candidates: dict[str, FileSummary] = {}
    for name in summary.kernel_names:
        for other in verdict.launchers.get(name, ()):
            candidates[other.path] = other
    out = []
    for other in candidates.values():
        if other is summary or any(dep.module_name == summary.module_name for dep in project.imported_project_modules(other)):
            out.append(other)
    # Launches of kernels the text cannot name: picked from a dict or a named tuple, or
    # handed to a helper as ``kernel=``; the model follows those values.
    named = {other.module_name for other in out}
    for module in sorted(project.program().launchers_of(summary.module_name) - named):
        other = project.module(module)
        if other is not None:
            out.append(other)
    return out


def _tree_decides(summary: "FileSummary", project: "Project") -> bool:
    """The file's findings need its tree: an explicit ``enable_backward`` of True (fixed in
    place), a kernel decorator of the project's own, or names the facts cannot resolve
    (re-exported Warp names). Else ``query`` decides."""
    ff = project.facts(summary)
    return bool(_turns_backward_on(ff) or ff.kernel_calls or project.imports_warp_names(summary))


def _open_case(project: "Project", summary: "FileSummary") -> tuple[_Verdict, BackwardFacts, bool] | None:
    """The verdict, the file's own backward facts and whether something may differentiate the
    module; None when there is nothing to say: its own setting cannot be read, or the module
    is differentiated and none of its unique kernels runs only where no tape records."""
    program = project.program()
    verdict = project_verdict(project)
    differentiated = _is_differentiated(program, verdict, summary.module_name)
    if differentiated and not _unrecorded_unique(program, summary.module_name):
        return None
    facts = _facts(project, summary)
    if facts.self_backward_unknown:
        return None
    return verdict, facts, differentiated


def _unrecorded_unique(program: Program, module: str) -> bool:
    """Some ``module="unique"`` kernel of ``module`` is launched only where no tape records."""
    facts = program.modules.get(module)
    if facts is None or not any(
        key.startswith("unique:")
        for index, kernel in enumerate(facts.kernels) if kernel.module is not None
        for key in map(module_key, program.kernel_modules(KernelRef(module, index)))
    ):  # fmt: skip
        return False  # no kernel of a module of its own: the walk need not run
    prefix = f"unique:{module}."
    return any(key.startswith(prefix) for key in program.unrecorded_modules())


def _test_code(project: "Project", summary: "FileSummary | None") -> bool:
    """A test's own file: by its module name (``pkg.tests.test_ops``, ``conftest``) or by its
    folders inside the project (``tests/helpers.py`` of a test folder that is no package)."""
    return summary is not None and (
        is_test_module(summary.module_name) or is_test_path(project.path_in_project(summary.path)))


def _module_finding(project: "Project", program: Program, summary: "FileSummary", verdict: _Verdict,
                    facts: BackwardFacts, live: int) -> tuple[str, Severity | None] | None:  # fmt: skip
    """The message (and severity; None: the rule's) for a module whose ``live`` kernels
    build backward code, its option not set from elsewhere; None when there is nothing to say."""
    module = summary.module_name
    if not live or facts.self_backward is False or verdict.configured.get(module, "unset") is True:
        return None
    if _test_code(project, summary):
        # A test's own kernels: their module is built once per test run, and its backward
        # share is a fraction of a second (one kernel on CPU: 2.00 s cold with it, 1.93 s
        # without): nothing worth a finding in each test file.
        return None
    if _backward_off_in_every_run(program, verdict, module):
        return None  # the program means to run without backward code; WCT001 says if it is too late
    consumers = _consumers(project, summary, verdict)
    if not consumers:
        return None  # nobody in view launches these kernels: callers elsewhere may differentiate them
    where = ", ".join(sorted({c.module_name for c in consumers})[:3])
    if _gradient_api(program, module) and not _runs_in_taping_application(program, module):
        # A library API that callers may differentiate through: turning backward code
        # off here would change every caller; the choice belongs to an application.
        why = "its kernels run from the library's public API, which callers may record on a tape of their own"
        return (
            f"module `{module}` compiles backward (adjoint) code for its {live} kernel(s) and "
            f"nothing in the linted code differentiates them, but {why}. " + _entry_point_advice(program, module)
        ), Severity.INFO
    runs = _runs_with_backward(program, verdict, module)
    # Another run turns backward code off: say which runs still build it.
    named = ", ".join(runs[:3]) + (", ..." if len(runs) > 3 else "")
    when = f"when {named} run{'s' if len(runs) == 1 else ''}, " if runs else ""
    shipped = _backward_off_at_applications(program, verdict)
    if shipped:
        # The project turns backward code off where its own applications start: runs through
        # them build none, so only a run started elsewhere (a user's script importing this
        # code, a script the model does not link to those entry points) pays for it.
        places = ", ".join(shipped[:3]) + (", ..." if len(shipped) > 3 else "")
        return (
            f"{when}module `{module}` compiles backward (adjoint) code for its {live} kernel(s) and nothing in "
            f"this project differentiates them (launched from {where}), but the project turns backward code off "
            f"where its applications start (`wp.config.enable_backward = False` at {places}): only a run that "
            "starts elsewhere builds it. Such a script can set it too, before its imports, or turn it off for "
            "this module with `wp.set_module_options({\"enable_backward\": False})`"
        ), Severity.INFO
    return (
        f"{when}module `{module}` compiles backward (adjoint) code for its {live} kernel(s), but "
        f"nothing in this project differentiates them (launched from {where}, {_never_recorded(program, module)}): "
        "turn it off for this module with `wp.set_module_options({\"enable_backward\": False})`"
    ), None


def _never_recorded(program: Program, module: str, them: str = "them") -> str:
    """Why no tape records the launches of Warp module ``module`` (``module_key``), for a message."""
    if module in program.unrecorded_modules():
        # A caller's tape around the solver's step is the usual doubt: say why it records nothing.
        return ("only where Warp's tape is suspended, inside a `with` block that sets the runtime tape to None "
                f"or a `tape.record_func` callback that backward() runs: no wp.Tape records {them}, not even one "
                f"around the call that runs {them}")  # fmt: skip
    return "never under a wp.Tape or with adjoint=True"


def _unique_kernels_to_report(project: "Project", program: Program, summary: "FileSummary", verdict: _Verdict,
                              facts: BackwardFacts, kernels: list[tuple[str, int]],
                              differentiated: bool) -> list[tuple[int, str]]:  # fmt: skip
    """A ``module="unique"`` kernel is a module of its own: the file's options never reach
    it (WCT013 says so where the file turns backward code off), so it compiles backward
    code unless its decorator says ``enable_backward=False``. Of the file's unique
    ``kernels`` (name, ``def`` line) that set nothing about it, the index of each nobody
    differentiates, with where it is launched and why no tape records it (for the message). Where something may
    differentiate the file's module (``differentiated``), only those launched where no tape
    records (``Program.unrecorded_modules``) and that no public API hands to callers' tapes."""
    module = summary.module_name
    if not kernels or facts.self_backward is False or _test_code(project, summary):
        return []  # (a test's own kernels: see ``_module_finding``)
    if _backward_off_in_every_run(program, verdict, module):
        return []
    consumers = _consumers(project, summary, verdict)
    if not consumers:
        return []  # launched by nobody in view
    # Nothing reaches the module at all, and no API callers may differentiate through.
    whole = not differentiated and module not in verdict.differentiated and not _gradient_api(program, module)
    taped, _opaque = program.differentiated()
    unrecorded = program.unrecorded_modules()
    own = {(k.name, k.span[0]): ref for ref, k in program.kernels() if ref.module == module}
    launching = _launching_functions_by_kernel(program)
    consumed = ", ".join(sorted({c.module_name for c in consumers})[:3])
    chosen: list[tuple[int, str]] = []
    for i, key in enumerate(kernels):
        ref = own.get(key)
        if ref is None:
            continue
        keys = [module_key(target) for target in program.kernel_modules(ref) if isinstance(target, tuple)]
        if any(k in taped for k in keys):
            continue
        suspended = bool(keys) and all(k in unrecorded for k in keys)
        if whole:
            chosen.append((i, f"launched from {consumed}, {_never_recorded(program, '', 'it')}"))
        elif suspended and not _kernel_gradient_api(program, ref):
            # Its own launches say where (another kernel of the file may be launched elsewhere).
            where = ", ".join(sorted({f.module for f in launching.get(ref, ())})[:3]) or consumed
            chosen.append((i, f"launched from {where}, {_never_recorded(program, keys[0], 'it')}"))
    return chosen


def _report_unique_kernel(ctx: "FileContext | QueryContext", at: Any, end: Any, name: str, launched: str) -> None:
    """The unique-kernel finding at its decorator ``at``; the fix goes after ``module="unique"`` (``end``)."""
    fix = ctx.fix("Turn backward code off for this kernel",
                  ctx.insert_at(end.line, end.character, ", enable_backward=False"), safe=False)  # fmt: skip
    ctx.report(
        at,
        f"`{name}` has a module of its own (module=\"unique\") that compiles backward "
        f"(adjoint) code, but nothing in this project differentiates it ({launched}): pass "
        "`enable_backward=False` to its decorator",
        fixes=[fix],
    )


def _report_module_finding(ctx: "FileContext | QueryContext", at: Any, finding: tuple[str, Severity | None]) -> None:
    """``_module_finding``'s finding at the first live kernel's decorator ``at``, with the
    module-option fix where it is a warning."""
    message, severity = finding
    fix = _module_option_fix(ctx) if severity is None else None
    ctx.report(at, message, fixes=[fix] if fix else [], severity=severity)


def _unique_fact_with_backward(kernel: KernelFact) -> bool:
    """``_unique_with_backward`` of a kernel's facts."""
    module = kernel.module
    return (module is not None and module.kind == "const" and module.data == "unique"
            and kernel.module_span is not None and None not in kernel.keywords
            and "enable_backward" not in kernel.keywords and "module_options" not in kernel.keywords)  # fmt: skip


def _is_false(value: object) -> bool:
    """A keyword's value that is the constant False (what ``keyword_const`` reads as False)."""
    return getattr(value, "kind", None) == "const" and getattr(value, "data", None) is False


def _module_option_fix(ctx: "FileContext | QueryContext"):
    """``wp.set_module_options({"enable_backward": False})`` after the module's imports,
    with the name its ``import warp`` binds (None without such an import)."""
    facts = ctx.facts
    if facts.warp_import_name is None or not facts.imports_end_line:
        return None
    text = f'\n{facts.warp_import_name}.set_module_options({{"enable_backward": False}})\n'
    return ctx.fix("Turn backward code off for this module", ctx.insert_at(facts.imports_end_line, 0, text), safe=False)


# ---------------------------------------------------------------------- warp.fem calls

FEM_KERNEL_OPTIONS = '{"enable_backward": False}'


def _fem_call_finding(ctx: "QueryContext", verdict: _Verdict,
                      call: FemCallFact) -> tuple[str, Severity | None, bool] | None:  # fmt: skip
    """The message, severity (None: the rule's) and whether the ``kernel_options`` fix goes
    with it, for a ``fem.integrate`` / ``fem.interpolate`` call whose integrand kernel
    warp.fem builds with backward code that nothing differentiates; None when something may
    (or the call says what it wants)."""
    program, module = ctx.program, ctx.module_name
    if call.integrand is None:
        return None  # ``fem.interpolate(fem.ImplicitField(...))``: warp.fem wraps it in a kernel of its own module
    if _test_code(ctx.project, ctx.project.files.get(ctx.path)):
        return None  # a test's own kernels (``_module_finding``)
    if call.options == "set" or call.grad_argument or program.fem_call_taped(module, call):
        return None  # its kernel_options decide, an argument asks for gradients, or a tape may record it
    facts = _facts(ctx.project, ctx.project.files[ctx.path])
    if facts.opaque_text or module in verdict.text_differentiated:
        return None  # JAX / gradcheck / vjp around it
    dispatch = program.fem_call_dispatches(module, call)
    # The integrand's kernel takes the options of the module that defines the integrand.
    integrand_ref = program.fem_integrand(module, call)
    home = ctx.project.module(integrand_ref.module) if integrand_ref is not None else None
    home_facts = _facts(ctx.project, home) if home is not None else facts
    only_dispatch = home_facts.self_backward is False or home_facts.self_backward_unknown
    if only_dispatch and not dispatch:
        return None  # the integrand's module builds its kernels without backward (or may), and the call no other
    if verdict.configured.get(module, "unset") in (None, False) or _backward_off_in_every_run(program, verdict, module):
        return None  # backward code turned off for the program (WCT001 says where that comes too late)
    application = _fem_application(program, module, call)
    if module in verdict.wants_grad and application is None:
        return None  # asks for gradients without a tape of its own: a caller's tape may record this call
    name = f"`fem.{call.kind}`"
    builds = _fem_builds(program, module, call, dispatch, only_dispatch)
    integrand = (call.integrand or "").rsplit(".", 1)[-1]
    key = program.fem_integrand_key(module, call)
    if not only_dispatch and key is not None and key in program.taped_fem_integrands():
        if not dispatch and program.fem_call_shares_taped_kernel(module, call):
            return None  # the same fields as a taped call: one kernel, whose adjoint the tape runs
        # warp.fem keys an integrand's kernel by its fields and options: with the same fields
        # as a taped call this one reuses that kernel, and the option would build one more.
        return (
            f"{name} {builds} and nothing "
            f"differentiates this call, but `{integrand}` is also integrated where a tape records it: where both "
            "calls pass the same kind of fields they share one kernel, and "
            f"`kernel_options={FEM_KERNEL_OPTIONS}` here would build a second one; where the fields differ "
            "(a trial function here, a discrete field there) it saves the adjoint code"
        ), Severity.INFO, True
    if application is None and call.function is not None and _callers_may_tape(
        program, module, {FunctionRef(module, call.function)}
    ):
        return (
            f"{name} {builds} and nothing in "
            "the linted code differentiates it, but it runs from the library's public API, which callers may record "
            "on a tape of their own. " + _entry_point_advice(program, module)
        ), Severity.INFO, False
    return (
        f"{name} {builds}, but nothing "
        "in this project differentiates this call (it runs outside every wp.Tape and passes no requires_grad "
        f"array): pass `kernel_options={FEM_KERNEL_OPTIONS}` to it"
    ), None, True


def _fem_builds(program: Program, module: str, call: FemCallFact, dispatch: bool, only_dispatch: bool) -> str:
    """What the call builds with backward code, for the message: the integrand's kernel, and
    warp.fem's dispatch kernel where the call passes a test field (``fem_call_dispatches``);
    only the latter where the integrand's module turns backward code off (or may)."""
    if not dispatch:
        return "builds its integrand's kernel with backward (adjoint) code (warp.fem's default)"
    kind = "bilinear" if program.fem_call_bilinear(module, call) else "*"
    module_name = f"`warp._src.fem.field.virtual.dyn.dispatch_{kind}_kernel_fn_*`"
    if only_dispatch:
        return (
            "passes a test field, so warp.fem also builds its dispatch kernel for it, a module of warp.fem's own "
            f"({module_name}) that the integrands' `set_module_options` never reaches: it is built with backward "
            "(adjoint) code (warp.fem's default, plus the call's kernel_options)"
        )
    return (
        "builds its integrand's kernel, and warp.fem's dispatch kernel for its test field "
        f"({module_name}), with backward (adjoint) code (warp.fem's default)"
    )


def _fem_application(program: Program, module: str, call: FemCallFact) -> str | None:
    """An entry point whose run makes ``call``: the script (or ``__main__``) the call is written
    in, whatever its name (an example's own calls have no other callers), or an application
    (not a test, example or benchmark) that reaches the call's function."""
    for entry in program.entry_modules():
        if entry == module:
            return entry
        if is_demo_path(program.project_path(entry)):
            continue
        if call.function is not None and FunctionRef(module, call.function) in program.reached_from(entry):
            return entry
    return None


def _fem_call_fix(ctx: "QueryContext", call: FemCallFact):
    """``kernel_options={"enable_backward": False}`` added to the call, or the item merged into
    its ``kernel_options`` dict literal."""
    if call.insert is None:
        return None
    end = ctx.range_of(call.insert).end
    if call.options == "absent":
        text = f", kernel_options={FEM_KERNEL_OPTIONS}"
    elif call.empty_options:
        text = '"enable_backward": False'
    else:
        text = ', "enable_backward": False'
    return ctx.fix("Build this call's kernels without backward code", ctx.insert_at(end.line, end.character, text),
                   safe=False)  # fmt: skip


def check_fem_calls(ctx: "QueryContext") -> None:
    """WCT010 for warp.fem: each ``fem.integrate`` / ``fem.interpolate`` call whose integrand
    kernel is built with backward code nothing differentiates, at the call."""
    if not ctx.facts.fem_calls or ctx.path not in ctx.project.files:
        return
    verdict = project_verdict(ctx.project)
    for call in ctx.facts.fem_calls:
        finding = _fem_call_finding(ctx, verdict, call)
        if finding is None:
            continue
        message, severity, fixable = finding
        fix = _fem_call_fix(ctx, call) if fixable else None
        ctx.report(call.span, message, fixes=[fix] if fix else [], severity=severity)


class UnusedBackward(Rule):
    code = "WCT010"
    name = "unused-backward"
    severity = Severity.WARNING
    summary = "Backward (adjoint) code is compiled for a module whose kernels nothing differentiates"
    fix_applicability = Applicability.UNSAFE
    triggers = (r"@[ \t]*(?:[\w.]+\.)?kernel\b", r"\bkernel\([^)]*unique")
    docs = '''
    ## What it does
    Decides, per Warp module (one Python file that defines kernels), whether anything
    in the linted project differentiates its kernels: launches them inside a
    `wp.Tape()`, launches them with `adjoint=True`, or calls into code that may (a tape
    around a function call, `requires_grad=True`, torch/JAX autograd). It reports a
    module whose kernels the project launches, but never differentiates, and that still
    generates backward code (the default), and a module that sets
    `enable_backward=True` explicitly although nothing differentiates it.

    A `module="unique"` kernel is a module of its own, and the file's
    `wp.set_module_options` never reaches it: one that is launched but never
    differentiated, and whose decorator sets neither `enable_backward` nor
    `module_options`, is reported at its decorator (where its file turns backward code
    off for its own module, WCT013 reports it instead). A project's own kernel decorator
    (`def unique_kernel(**kw): ... return wp.kernel(f, module="unique", **kw)`) is
    reported once, at its `wp.kernel` call, when kernels it makes are launched, none of
    its uses passes `enable_backward` or `module_options`, and nothing in the project
    differentiates at all (which of those kernels a tape would reach is not followed).

    A tape over one module says nothing about another: a training script that records
    `physics.py` on a tape but only renders with `render.py` differentiates the first,
    not the second.

    warp.fem: each `fem.integrate` / `fem.interpolate` call that no tape records is
    reported at the call, with the `kernel_options={"enable_backward": False}` fix:
    warp.fem builds the integrand's kernel into a module of its own, with the options of
    the integrand's module plus the call's `kernel_options`. An `fem.integrate` passing a
    test field (`fem.make_test`) with the "dispatch" assembly (the default, unless the
    integrand applies a node operator such as `fem.at_node`; not `assembly="nodal"`)
    also builds warp.fem's dispatch kernel, a module of warp.fem's own
    (`warp._src.fem.field.virtual.dyn.dispatch_*_kernel_fn_*`) that no
    `wp.set_module_options` of the project reaches: where the integrand's module turns
    backward code off, that kernel alone is reported. Methods called on warp.fem objects
    inside a tape (`field.trace()`) are warp's own code and hide no project kernel.

    Launches are followed to the kernels they run: picked from a dict or a list
    (`KERNELS[order]`), handed to a helper that launches its `kernel` argument, or
    imported through a package's `from .ops import *`. A tape around a method of an
    object of unknown type (`self.policy.act(x)`) counts for every project method of
    that name.

    A `with` block is a tape when the model sees one: `wp.Tape()`, a name or attribute
    holding a `wp.Tape` (`with tape:`, `with self.recorder:`), a project subclass of
    `wp.Tape`. A project context manager that sets Warp's runtime tape to None
    (`runtime.tape = None`, `tape, runtime.tape = runtime.tape, None`: a
    `suspended_tape()` pausing the caller's tape around a solver's forward step) records
    nothing inside it, nor in what it calls, and neither does a tape around the call that
    runs it; a `wp.Tape` opened inside it still records. A context the model cannot
    resolve counts as a tape when its text names one (`with something_tape():`).

    Code that runs only while the tape is suspended is recorded by no tape at all: a
    solver whose `step` runs its forward work inside `suspended_tape()` and records a
    hand-made adjoint instead (`tape.record_func`) leaves the kernels of that work
    unrecorded, whatever tape a caller holds around `step`, and whatever the adjoint's
    own tapes record around calls the linter cannot follow: such a module (or unique
    kernel) is reported, and the message says so. So is the body of a lambda handed to
    `tape.record_func(lambda: ..., arrays)`: Warp runs it in `tape.backward()`, where no
    tape records (a function handed on by name is a value that may run anywhere). A
    function the project calls itself only with the tape suspended counts as its own
    helper; what may run outside every suspension may be recorded: a function nothing in
    the project calls, one handed around as a value, a method that a call on an object of
    unknown type (`blk.assemble(x)`) names, and a launch of a kernel the linter cannot
    name there keeps every module in doubt.

    ## Why it costs compile time
    With backward enabled (Warp's default) every kernel is compiled twice over: the
    forward code and its adjoint, which is often larger than the forward code. For a
    module that is only ever run forward, that half of the build is wasted, on every
    cold start and for every block_dim and device the module is built for.

    ## Example
    ```python
    # file: sim/physics.py
    import warp as wp

    @wp.kernel
    def integrate(x: wp.array(dtype=float), v: wp.array(dtype=float), dt: float):
        i = wp.tid()
        x[i] = x[i] + v[i] * dt
    # file: sim/render.py
    import warp as wp

    @wp.kernel  # WCT010
    def to_pixels(x: wp.array(dtype=float), img: wp.array(dtype=float)):
        i = wp.tid()
        img[i] = wp.clamp(x[i], 0.0, 1.0)
    # file: sim/__init__.py
    # file: sim/train.py
    import warp as wp

    from sim.physics import integrate
    from sim.render import to_pixels

    def train(x, v, img, loss):
        tape = wp.Tape()
        with tape:
            wp.launch(integrate, dim=x.shape, inputs=[x, v, 0.01])
        tape.backward(loss)
        wp.launch(to_pixels, dim=x.shape, inputs=[x, img])
    ```

    ## Use instead
    Turn backward code off for the forward-only module, in that module:
    ```python
    # file: sim/render.py
    import warp as wp

    wp.set_module_options({"enable_backward": False})

    @wp.kernel
    def to_pixels(x: wp.array(dtype=float), img: wp.array(dtype=float)):
        i = wp.tid()
        img[i] = wp.clamp(x[i], 0.0, 1.0)
    # file: sim/__init__.py
    # file: sim/main.py
    import warp as wp

    from sim.render import to_pixels

    def show(x, img):
        wp.launch(to_pixels, dim=x.shape, inputs=[x, img])
    ```
    A program that never differentiates anything can instead set
    `wp.config.enable_backward = False` in its entry point, before importing any kernel
    module. Never set it globally inside a library: it would also switch off modules
    your users differentiate.

    ## When not to apply
    A library whose kernels nothing in the linted project launches is not reported:
    callers outside it may differentiate them. Likewise when the tape records calls the
    linter cannot follow into, the modules those calls can reach count as
    differentiated:
    ```python
    # file: lib/ops.py
    import warp as wp

    @wp.kernel
    def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = x[i] * x[i]

    def apply(x, y):
        wp.launch(square, dim=x.shape, inputs=[x, y])
    # file: lib/__init__.py
    # file: lib/fit.py
    import warp as wp

    from lib import ops

    def fit(x, y, loss):
        tape = wp.Tape()
        with tape:
            ops.apply(x, y)
        tape.backward(loss)
    ```
    A module whose kernels run from the library's public API (a function or a method of a
    class without a leading underscore, or an object the library hands out, outside tests
    and examples), where the code asks for gradients (a `requires_grad` or `*_grad`
    parameter on the way, arrays made with `requires_grad=x.requires_grad`) or the project
    records Warp tapes itself, gets information pointing to the application instead:
    callers may record it on a tape of their own, and turning backward code off in the
    library would change every caller. What docstrings say decides nothing. The advice is
    `wp.config.enable_backward = False` at the entry point only where nothing in the
    project records tapes (elsewhere that switch would zero their gradients too), else the
    module's own option set by the application before its first launch. An application
    in view that records tapes itself and runs the module's kernels outside them gets the
    warning: it chose what to differentiate.

    When the project's own application entry points (not tests, examples or benchmarks)
    turn backward code off for their whole run (`wp.config.enable_backward = False` before
    the imports, at import of a module they load, or in a function their run calls), runs
    through them build none: a module is then reported as information only, naming those
    settings, since only a run that starts elsewhere (a user's script importing the code,
    a script shipped beside it) still builds backward code for it. When every run in view
    turns it off, nothing is reported.

    A test's own kernels (in a module named `test_*`, `*_test`, `conftest` or inside a
    `tests`/`test` package: its module, its `module="unique"` kernels, its kernel
    decorators, its `fem.integrate` calls) are not reported: such a module is built once
    per test run, and its backward share is a fraction of a second (one kernel on CPU:
    2.00 s cold with it, 1.93 s without). Library modules the tests launch are judged as
    usual.

    If the module's kernels are differentiated by code outside the project, keep the
    default and suppress with `# noqa: WCT010`.
    '''

    def prepare(self, project: "Project") -> None:
        # What every kernel file's gate asks first: the modules tapes and gradient APIs may
        # reach (the kernels escaping to other code: half of the gates' time).
        if not any(summary.kernel_names for summary in project.files.values()):
            return
        program, verdict = project.program(), project_verdict(project)
        _opaque_reach(program)
        _wants_grad_reach(program, verdict)

    def needs_tree(self, summary: "FileSummary", project: "Project") -> bool:
        # The same decisions as the checks, taken on the project view alone: most kernel
        # files of a library are differentiated, configured, or launched by nobody in view.
        if not _tree_decides(summary, project) or _test_code(project, summary):
            return False  # ``query`` decides; a test's own kernels are not reported (``_module_finding``)
        if any(module is not None for _f, _s, module, _b, _k in project.facts(summary).kernel_calls):
            return True  # a kernel decorator of the project's own (``_check_kernel_decorators``)
        if not summary.kernel_names:
            return False
        case = _open_case(project, summary)
        if case is None:
            return False
        verdict, facts, differentiated = case
        if differentiated:
            return True  # a unique kernel launched only where no tape records (``_unique_kernels_to_report``)
        configured = verdict.configured.get(summary.module_name, "unset")
        if configured is None or configured is False:
            return False
        if _turns_backward_on(project.facts(summary)):
            return True
        if facts.self_backward is False or configured is True:
            return False
        if _backward_off_in_every_run(project.program(), verdict, summary.module_name):
            return False
        return _may_have_live_kernels(project.facts(summary)) and bool(_consumers(project, summary, verdict))

    def query(self, ctx: QueryContext) -> None:
        """The module's finding where the facts name all it needs: its kernels' decorators
        and where its imports end (most kernel files: no tree). ``leave_module`` takes the
        files ``_tree_decides`` gives it, and only those."""
        if _test_code(ctx.project, ctx.project.files.get(ctx.path)):
            return  # a test's own kernels (``_module_finding``)
        check_fem_calls(ctx)
        summary = ctx.project.files.get(ctx.path)
        if summary is None or not summary.kernel_names or _tree_decides(summary, ctx.project):
            return
        case = _open_case(ctx.project, summary)
        if case is None:
            return
        verdict, facts, differentiated = case
        unique = [k for k in ctx.facts.kernels if k.decorator == "kernel" and _unique_fact_with_backward(k)]
        keys = [(k.name, k.span[0]) for k in unique]
        for i, launched in _unique_kernels_to_report(ctx.project, ctx.program, summary, verdict, facts, keys,
                                                     differentiated):  # fmt: skip
            end = ctx.range_of(unique[i].module_span).end  # type: ignore[arg-type]  # after ``module="unique"``
            _report_unique_kernel(ctx, unique[i].decorator_span, end, keys[i][0], launched)
        if differentiated:
            return  # the module's own kernels: something may differentiate them
        configured = verdict.configured.get(ctx.module_name, "unset")
        if configured is None or configured is False:
            return  # set (or possibly set) from elsewhere by name
        live = sorted(
            k.decorator_span for k in ctx.facts.kernels
            if k.decorator == "kernel" and "module" not in k.keywords and not _is_false(k.enable_backward)
        )  # fmt: skip
        finding = _module_finding(ctx.project, ctx.program, summary, verdict, facts, len(live))
        if finding is None:
            return
        _report_module_finding(ctx, live[0], finding)

    def leave_module(self, node: ast.Module, ctx: FileContext) -> None:
        project = ctx.project
        summary = project.files.get(ctx.path)
        if summary is None or not _tree_decides(summary, project) or _test_code(project, summary):
            return  # ``query``'s file, or a test's own kernels (``_module_finding``)
        if ctx.facts.kernel_calls:
            self._check_kernel_decorators(ctx)
        if not summary.kernel_names:
            return
        case = _open_case(project, summary)
        if case is None:
            return
        verdict, facts, differentiated = case
        self._check_unique_kernels(ctx, summary, verdict, facts, differentiated)
        if differentiated:
            return  # the module's own kernels: something may differentiate them
        configured = verdict.configured.get(ctx.module_name, "unset")
        if configured is None or configured is False:
            return  # set (or possibly set) from elsewhere by name
        explicit = self._explicit_true(ctx, ctx.kernel_decorators())
        if explicit is not None:
            node_, fix = explicit
            ctx.report(
                node_,
                f"backward code is turned on explicitly for module `{ctx.module_name}`, but nothing in this "
                "project differentiates its kernels (no wp.Tape or adjoint launch reaches them): every build "
                "compiles adjoint code nobody uses",
                fixes=[fix] if fix else [],
                severity=Severity.INFO if not _consumers(project, summary, verdict) else None,
            )
            return
        live = [d for d in ctx.kernel_decorators()
                if not d.is_unique and "module" not in d.keywords and d.keyword_const("enable_backward") is not False]  # fmt: skip
        finding = _module_finding(project, ctx.program, summary, verdict, facts, len(live))
        if finding is None:
            return
        _report_module_finding(ctx, live[0].decorator, finding)

    def _check_unique_kernels(self, ctx: FileContext, summary: "FileSummary", verdict: _Verdict,
                              facts: BackwardFacts, differentiated: bool) -> None:
        """``_unique_kernels_to_report``, read from the tree."""
        live = [d for d in ctx.kernel_decorators() if d.kind == "kernel" and _unique_with_backward(d)]
        keys = [(d.funcdef.name, d.funcdef.lineno) for d in live]
        for i, launched in _unique_kernels_to_report(ctx.project, ctx.program, summary, verdict, facts, keys,
                                                     differentiated):  # fmt: skip
            end = ctx.node_range(live[i].keywords["module"]).end  # after ``module="unique"``
            _report_unique_kernel(ctx, live[i].decorator, end, keys[i][0], launched)

    def _check_kernel_decorators(self, ctx: FileContext) -> None:
        """A project's own kernel decorator (``def unique_kernel(**kw): ... wp.kernel(f,
        module="unique", **kw)``) gives every kernel it makes a module of its own, with
        backward code unless the decorator or its uses say ``enable_backward``. Reported at its
        ``wp.kernel`` call, once for all the kernels, where nothing in the project
        differentiates anything: which of those kernels a tape reaches, the model cannot tell."""
        program = ctx.program
        verdict = project_verdict(ctx.project)
        taped, opaque = program.differentiated()
        if taped or opaque or verdict.differentiated or verdict.text_differentiated or verdict.wants_grad:
            return
        uses = program.kernel_decorator_uses()
        for index, (function, span, module_value, sets_backward, spread) in enumerate(ctx.facts.kernel_calls):
            if sets_backward or module_value is None or _sets_backward_default(program, ctx.module_name, function):
                continue
            if program.resolve(ctx.module_name, function, module_value) != ["unique"]:
                continue
            kernels = [(ref, decorator) for ref, decorator in uses.get((ctx.module_name, index), ())
                       if not spread or not _BACKWARD_KEYWORDS & set(program.function(ref).decorator_keywords)]  # type: ignore[union-attr]  # fmt: skip
            launched = sorted({ref.qualname.rsplit(".", 1)[-1] for ref, _d in kernels
                               if ref.qualname.rsplit(".", 1)[-1] in verdict.launchers})  # fmt: skip
            if not launched:
                continue  # made, but launched by nobody in view
            modules = {ref.module for ref, _d in kernels}
            if all(_backward_off_in_every_run(program, verdict, m) for m in modules) or any(
                _gradient_api(program, m) for m in modules
            ):
                continue
            decorator = min((d for _r, d in kernels), key=lambda d: d.qualname.count("."))
            names = ", ".join(f"`{name}`" for name in launched[:3]) + (", ..." if len(launched) > 3 else "")
            ctx.report(
                ctx._range(*span),
                f"every kernel made with `{decorator.qualname}` gets a module of its own (module=\"unique\") that "
                f"compiles backward (adjoint) code ({len(launched)} launched in this project: {names}), but nothing "
                "in this project differentiates: pass `enable_backward=False` to this `wp.kernel` call",
            )

    def _explicit_true(self, ctx: FileContext, kernels):
        for call in bare_module_option_calls(ctx):
            for key, value in dict_items(ctx.keyword(call, "options", 0)) or []:
                if key.value == "enable_backward" and isinstance(value, ast.Constant) and value.value is True:
                    return call, ctx.fix("Turn backward code off for this module", ctx.replace_node(value, "False"),
                                         safe=False)  # fmt: skip
        for dec in kernels:
            value = dec.keywords.get("enable_backward")
            if isinstance(value, ast.Constant) and value.value is True:
                return dec.decorator, ctx.fix("Turn backward code off for this kernel", ctx.replace_node(value, "False"),
                                              safe=False)  # fmt: skip
        # ``def make(enable_backward=True): @wp.kernel(enable_backward=enable_backward)``, no
        # caller passing it: the default decides.
        program = ctx.program
        for kernel in ctx.facts.kernels:
            value = kernel.enable_backward
            if value is None or value.kind != "param" or kernel.function is None:
                continue
            ref = FunctionRef(ctx.module_name, kernel.function)
            fact = program.function(ref)
            if fact is None or fact.defaults.get(value.data) != const(True) or not program.default_decides(ref, value.data):
                continue
            span = fact.default_spans[value.data]
            rng = ctx._range(*span)
            return rng, ctx.fix(f"Default `{value.data}` to False", TextEdit(rng, "False"), safe=False)
        return None


_BACKWARD_KEYWORDS = {"enable_backward", "module_options", "**"}


def _sets_backward_default(program: Program, module: str, function: str) -> bool:
    """``kwargs.setdefault("enable_backward", False)`` in the function or one enclosing it."""
    ref: FunctionRef | None = FunctionRef(module, function)
    while ref is not None:
        fact = program.function(ref)
        if fact is None:
            return False
        if any(call.callee.endswith(".setdefault") and call.args[:1] == (const("enable_backward"),) for call in fact.calls):
            return True
        ref = FunctionRef(module, fact.parent) if fact.parent else None
    return False


def _unique_with_backward(decorator: KernelDecorator) -> bool:
    """``@wp.kernel(module="unique")`` with nothing that sets its backward option: no
    ``enable_backward=``, no ``module_options=`` (which may carry it), no ``**spread``."""
    call = decorator.call
    return (decorator.is_unique and call is not None and all(kw.arg is not None for kw in call.keywords)
            and "enable_backward" not in decorator.keywords and "module_options" not in decorator.keywords)  # fmt: skip


def _backward_off_in_every_run(program: Program, verdict: _Verdict, module: str) -> bool:
    """Every run that loads ``module`` turns backward code off (``wp.config.enable_backward``
    set to anything but True: False, a command-line flag): the author chose; when it comes
    too late for some modules, WCT001 reports the assignment.

    A setting is a global effect of the run that executes it: an entry point (a script, a
    ``__main__``) runs the settings of the modules it imports, and those inside a function
    only if it calls that function. A setting in a package ``__init__`` runs wherever the
    package is imported. A module no entry point in view loads is library code: only a
    module that imports it (not a test's ``conftest.py``: the tests are not the program)
    decides for it. One run that loads the module with backward code on keeps the finding."""
    sources = program.memo("WCT010.backward_off_sources", lambda: _backward_off_sources(program, verdict))
    if not sources:
        return False
    parts = module.split(".")
    packages = {".".join(parts[:cut]) for cut in range(1, len(parts) + 1)}  # imported with the module
    if any(source in packages and function is None for source, function in sources):
        return True
    runs = [entry for entry in program.entry_modules() if entry == module or module in program.imported_closure(entry)]
    if runs:
        return all(_run_turns_off(program, entry, sources, module) for entry in runs)
    return any(function is None and not is_test_path(program.project_path(source)) and module in program.imported_closure(source)
               for source, function in sources)  # fmt: skip


def _runs_with_backward(program: Program, verdict: _Verdict, module: str) -> list[str]:
    """The runs that load ``module`` with backward code on, named as a user starts them,
    when some other run turns it off (else [], since then every run keeps it on and
    naming one says nothing)."""
    sources = program.memo("WCT010.backward_off_sources", lambda: _backward_off_sources(program, verdict))
    if not sources:
        return []
    runs = [entry for entry in program.entry_modules() if entry == module or module in program.imported_closure(entry)]
    keeping = [entry for entry in runs if not _run_turns_off(program, entry, sources, module)]
    if len(keeping) == len(runs):
        return []
    return [run_label(entry) for entry in sorted(keeping)]


def _backward_off_at_applications(program: Program, verdict: _Verdict) -> list[str]:
    """Where the project's own application entry points (not tests, examples or benchmarks)
    turn backward code off for their whole run (``wp.config.enable_backward = False`` at the
    entry's import, in a module it imports, a package above it that ``python -m`` runs first,
    or a function its run calls), as ``path:line``: [] when none does."""

    def compute() -> list[str]:
        sources = program.memo("WCT010.backward_off_sources", lambda: _backward_off_sources(program, verdict))
        if not sources:
            return []
        used: set[tuple[str, str | None]] = set()
        for entry in program.entry_modules():
            facts = program.modules.get(entry)
            if facts is None or is_demo_path(program.project_path(entry)):
                continue
            parts = entry.split(".")
            loaded = program.imported_closure(entry) | {".".join(parts[:cut]) for cut in range(1, len(parts))}
            reached = None
            for source, function in sources:
                if source not in loaded or is_test_path(program.project_path(source)):
                    continue
                if function is not None:
                    reached = program.reached_from(entry) if reached is None else reached
                    if FunctionRef(source, function) not in reached:
                        continue
                used.add((source, function))
        places: dict[str, None] = {}
        for source, function in sorted(used, key=lambda s: (s[0], s[1] or "")):
            facts = program.modules[source]
            for option in facts.options:
                if _turns_backward_off(option) and (function is None or option.function == function):
                    name = source.replace(".", "/") + ("/__init__.py" if facts.is_package else ".py")
                    places.setdefault(f"{name}:{option.span[0]}")
        return list(places)

    return program.memo("WCT010.backward_off_at_applications", compute)


def run_label(entry: str) -> str:
    """How a user starts a run: `python -m app` for a package's ``__main__``, the script's
    path from the top of its package otherwise (the same wherever warp-ct runs from)."""
    if entry.endswith(".__main__"):
        return f"`python -m {entry[: -len('.__main__')]}`"
    return f"`{entry.replace('.', '/')}.py`"


def _backward_off_sources(program: Program, verdict: _Verdict) -> frozenset[tuple[str, str | None]]:
    """(module, function or None at module level) of each setting that turns backward code off."""
    found: set[tuple[str, str | None]] = set()
    for module, facts in program.modules.items():
        for option in facts.options:
            if _turns_backward_off(option):
                function = option.function
                if function is not None and program.frequency(FunctionRef(module, function)).freq == Freq.IMPORT:
                    function = None  # ``_configure_warp()`` called by the module's own body: at import
                found.add((module, function))
    seen = {module for module, _function in found}
    # The text says so where the facts saw no setting (an alias they cannot follow): at import.
    found.update((module, None) for module in verdict.global_off if module in program.modules and module not in seen)
    return frozenset(found)


def _run_turns_off(program: Program, entry: str, sources: frozenset[tuple[str, str | None]], module: str) -> bool:
    loaded = program.imported_closure(entry) | {entry}
    inside = {(source, function) for source, function in sources if source in loaded}
    if any(function is None for _source, function in inside):
        return True  # set at import of a module the run loads
    if not inside:
        return False
    reached = program.reached_from(entry)
    if not any(FunctionRef(source, function) in reached for source, function in inside):
        # Called from where the model cannot follow (``args.func(args)`` of an argparse
        # subcommand): that subcommand may well be the run that launches this module.
        return any(not program.callers(FunctionRef(source, function)) for source, function in inside)
    # Set inside a function the run calls: unless one of the run's flows shows a branch
    # that launches this module without passing such a setting (``if cmd == "fast": fast()``
    # sets it, ``else: render()`` launches with backward code on: that arm is a run too).
    for root in (FunctionRef(entry, "<module>"), *reached):
        events = program.effects(root)
        offs = [event for event in events if event.kind == "options" and _turns_backward_off(event.detail)]
        if not offs:
            continue
        for event in events:
            if event.kind == "load" and module in event.warp_modules and all(off.exclusive_with(event) for off in offs):
                return False
    return True


def _turns_backward_off(option: object) -> bool:
    value = getattr(option, "options", {}).get("enable_backward")
    return getattr(option, "kind", None) == "config" and value is not None and value != const(True)


def _is_differentiated(program: Program, verdict: _Verdict, module: str) -> bool:
    """Whether something may differentiate ``module``'s kernels: the program model sees a
    tape or an adjoint launch reaching them (through calls, across files), or a tape over
    calls it cannot follow in a file that imports the module; a file differentiates
    through JAX or gradcheck; or a file asks for gradients without a tape of its own
    (``requires_grad``) and no application runs the module (a caller's tape may)."""
    if module in verdict.text_differentiated:
        return True
    if module in program.differentiated()[0]:
        return True
    # A tape over calls the model cannot follow may reach the modules its file imports, and
    # kernels handed to other code as values (``wrapper(launch, kernel, ...)``); modules
    # only further down the imports launch their own kernels where the model sees them.
    # Gradients asked for without a tape in view: a caller's tape may record those modules,
    # unless an application of the linted code runs them (and shows no tape).
    maybe = module in _opaque_reach(program) or (
        module in _wants_grad_reach(program, verdict) and _application_entry(program, module) is None)
    # Launched only where the tape is suspended: no tape, opaque or a caller's, records them.
    return maybe and module not in program.unrecorded_modules()


def _opaque_reach(program: Program) -> frozenset[str]:
    """The modules a tape over calls the model cannot follow may reach."""
    return program.opaque_tape_reach()


def _wants_grad_reach(program: Program, verdict: _Verdict) -> frozenset[str]:
    """The modules a caller's tape may record for the files that ask for gradients."""
    return _reached_from(program, "wants_grad", verdict.wants_grad)


def _reached_from(program: Program, label: str, sources: Iterable[str]) -> frozenset[str]:
    """The modules a differentiating source may reach: those it imports itself, and those
    further down its imports whose kernels are handed to other code as values. One answer
    per program and label (the gate asks once per kernel file)."""

    def compute() -> frozenset[str]:
        if not sources:
            return frozenset()  # (the modules kernels escape to are a whole-program question)
        escaped = program.escaped_kernel_modules()
        reached: set[str] = set()
        for source in sources:
            reached |= program.imported_directly(source)
            reached |= program.imported_closure(source) & escaped
        return frozenset(reached)

    return program.memo(f"WCT010.reached_from.{label}", compute)


def _gradient_api(program: Program, module: str) -> bool:
    """Callers outside the project may record ``module``'s kernels on a tape of their own:
    a public function of the library (not a test, example or entry point; no leading
    underscore) runs a launch of them, and the code says gradients are wanted of it — a
    function on that path (or in the module) takes ``requires_grad`` or a ``*_grad``
    parameter or makes arrays with ``requires_grad=x.requires_grad``, or the project records
    Warp tapes whose reach the model cannot tell (``_unfollowed_tapes``) (it is a library meant to be
    differentiated). Facts of the code only: words in docstrings decide nothing."""
    return program.memo(f"WCT010.gradient_api.{module}", lambda: _compute_gradient_api(program, module))


def _compute_gradient_api(program: Program, module: str) -> bool:
    return _callers_may_tape(program, module, _launching_functions(program).get(module, set()))


def _kernel_gradient_api(program: Program, ref: KernelRef) -> bool:
    """``_gradient_api`` of one kernel (a ``module="unique"`` one: a module of its own), from
    the functions that launch it alone."""
    launching = _launching_functions_by_kernel(program).get(ref, set())
    return program.memo(f"WCT010.kernel_gradient_api.{ref.module}.{ref.index}",
                        lambda: _callers_may_tape(program, ref.module, launching))  # fmt: skip


def _launching_functions(program: Program) -> dict[str, set[FunctionRef]]:
    """Python module of a kernel -> the functions with a launch of one of its kernels."""
    def compute() -> dict[str, set[FunctionRef]]:
        out: dict[str, set[FunctionRef]] = {}
        for kernel, functions in _launching_functions_by_kernel(program).items():
            out.setdefault(kernel.module, set()).update(functions)
        return out

    return program.memo("WCT010.launching_functions", compute)


def _launching_functions_by_kernel(program: Program) -> dict[KernelRef, set[FunctionRef]]:
    """Kernel -> the functions with a launch of it outside a suspended block (where a
    caller's tape may record it; one pass over the program's launches, not one per module
    asked about)."""
    def compute() -> dict[KernelRef, set[FunctionRef]]:
        out: dict[KernelRef, set[FunctionRef]] = {}
        for launch_module, launch_facts in program.modules.items():
            for index, launch in enumerate(launch_facts.launches):
                if launch.function is None or not launch.kind.startswith("launch"):
                    continue
                if launch.withs and program.suspended(launch):
                    continue
                for kernel in program.launch_kernels(launch_module, index):
                    if isinstance(kernel, KernelRef):
                        out.setdefault(kernel, set()).add(FunctionRef(launch_module, launch.function))
        return out

    return program.memo("WCT010.launching_functions_by_kernel", compute)


def _callers_may_tape(program: Program, module: str, launching: set[FunctionRef]) -> bool:
    """``_gradient_api`` for the launches (or warp.fem calls) made in ``launching``."""
    if not launching:
        return False
    reach = program.reaching_recorded(list(launching))  # a caller's tape around a suspension records nothing
    open_ = program.open_functions()  # handed out as values, ``__call__`` of objects handed out
    if not any(_public(program, ref) or (ref in open_ and _library(program, ref.module)) for ref in reach):
        return False  # only the project's own runs, tests or private helpers get there
    if _unfollowed_tapes(program):
        return True  # the project records tapes where the model cannot tell what they record
    # The module, the modules that launch its kernels, and the functions on the way there.
    modules = {module, *(ref.module for ref in launching)}
    own = [fact for name in modules if (facts := program.modules.get(name)) is not None for fact in facts.functions.values()]
    return any(_asks_for_gradients(fact) for fact in own) or any(
        (fact := program.function(ref)) is not None and _asks_for_gradients(fact) for ref in reach
    )


def _library(program: Program, module: str) -> bool:
    path = program.project_path(module)
    return not (is_test_path(path) or is_demo_path(path) or module.endswith("__main__"))


def _public(program: Program, ref: FunctionRef) -> bool:
    """A function a caller of the library can call: a module-level function or a method of
    a module-level class, neither named with a leading underscore (``__call__`` and
    ``__init__`` are public), in a library module (not a test, example, ``__main__``)."""
    fact = program.function(ref)
    if fact is None or fact.is_kernel or fact.parent is not None or ref.module.endswith("__main__"):
        return False
    path = program.project_path(ref.module)
    if is_test_path(path) or is_demo_path(path):
        return False
    if fact.name.startswith("_") and fact.name not in ("__call__", "__init__"):
        return False
    return not (fact.class_name and fact.class_name.rsplit(".", 1)[-1].startswith("_"))


def _asks_for_gradients(fact: Any) -> bool:
    """A parameter that asks for gradients (``requires_grad``, ``*_grad``), or arrays made
    with ``requires_grad=`` something other than False (``x.requires_grad``: gradients
    handed on to the caller's tape)."""
    return getattr(fact, "asks_grad", False) or any(param == "requires_grad" or param.endswith("_grad") for param in fact.params)


def _project_tapes(program: Program) -> bool:
    """The project records Warp tapes or launches adjoints itself (not a torch ``backward()``
    alone): a tape or adjoint launch the model follows, a tape over calls it cannot follow,
    or a module that imports Warp and differentiates (a tape built where the model does not
    see its calls), outside tests and examples."""

    def compute() -> bool:
        taped, opaque = program.differentiated()
        if taped or opaque:
            return True
        return any(
            facts.differentiates and facts.warp_import_name is not None
            and not is_test_path(program.project_path(module)) and not is_demo_path(program.project_path(module))
            for module, facts in program.modules.items()
        )  # fmt: skip

    return program.memo("WCT010.project_tapes", compute)


def _unfollowed_tapes(program: Program) -> bool:
    """A library module (not a test or example) that imports Warp records a tape or asks for
    adjoints where the model sees no taped launch or call: what it records cannot be bounded
    (a generic custom-op wrapper replaying Warp tapes), so any API module may be on it. Tapes
    the model follows are answered module by module (``_is_differentiated``): a module they
    do not reach is not differentiated by the project."""

    def compute() -> bool:
        for module, facts in program.modules.items():
            if not facts.differentiates or facts.warp_import_name is None:
                continue
            path = program.project_path(module)
            if is_test_path(path) or is_demo_path(path):
                continue
            followed = any(program.taped(launch) for launch in facts.launches) or any(
                program.taped(call) for calls in (*(f.calls for f in facts.functions.values()), facts.module_calls,
                                         facts.main_calls) for call in calls)  # fmt: skip
            if not followed:
                return True
        return False

    return program.memo("WCT010.unfollowed_tapes", compute)


def _entry_point_advice(program: Program, module: str) -> str:
    """What an application can write: ``wp.config.enable_backward = False`` at its entry
    point only where nothing in view records tapes (that switch would also zero the
    gradients of every module a run through the same entry point differentiates); else the
    module's own option, set by the application before the module's first launch."""
    taped, opaque = program.differentiated()
    if not taped and not opaque and not _project_tapes(program):
        return ("An application that never differentiates can turn it off at its entry point, before importing "
                "this code: `wp.config.enable_backward = False`")  # fmt: skip
    return (
        "An application that never differentiates this module can turn it off for this module alone, before its "
        f"first launch: `wp.get_module(\"{module}\").options.update({{\"enable_backward\": False}})` (not "
        "`wp.config.enable_backward = False`: code in this project records tapes, and that switch would zero "
        "their gradients too)"
    )


def _application_entry(program: Program, module: str) -> str | None:
    """An application entry point (not a test, example or benchmark) whose run launches a
    kernel of ``module``'s own Warp module."""
    return program.memo("WCT010.application_entries", lambda: _application_entries(program)).get(module)


def _runs_in_taping_application(program: Program, module: str) -> bool:
    """An application in view runs ``module``'s kernels and records tapes itself: it chose
    what to differentiate, and left these kernels off its tapes (a library's forward smoke
    test records none, and its callers may)."""
    entry = _application_entry(program, module)
    if entry is None:
        return False

    def compute() -> bool:
        facts = program.modules[entry]
        if any(program.taped(call) for call in (*facts.main_calls, *facts.module_calls)):
            return True  # a tape in the entry's own top-level code
        return any(
            (fact := program.function(ref)) is not None and fact.differentiates for ref in program.reached_from(entry)
        )

    return program.memo(f"WCT010.taping_application.{entry}", compute)


def _application_entries(program: Program) -> dict[str, str]:
    """Python module -> the first application entry point whose run launches one of its kernels."""
    # The launches once, by the function that makes them (None: a module's top level), in
    # program order: each entry then looks at its own, not at every launch of the program.
    launches: dict[FunctionRef | str, list[tuple[str, int]]] = {}
    for launch_module, launch_facts in program.modules.items():
        for index, launch in enumerate(launch_facts.launches):
            if launch.kind.startswith("launch"):
                owner = launch_module if launch.function is None else FunctionRef(launch_module, launch.function)
                launches.setdefault(owner, []).append((launch_module, index))
    found: dict[str, str] = {}
    for entry in program.entry_modules():
        if is_demo_path(program.project_path(entry)):
            continue
        reached = program.reached_from(entry)
        owners = [entry, *(reached if len(reached) < len(launches) else (o for o in launches if o in reached))]
        for owner in owners:
            for launch_module, index in launches.get(owner, ()):
                for ref in program.launch_kernels(launch_module, index):
                    if isinstance(ref, KernelRef):
                        found.setdefault(ref.module, entry)
    return found
