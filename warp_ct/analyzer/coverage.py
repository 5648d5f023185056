"""What the program model understands of a project (``warp-ct model``): a query on the model.

For each project of a run (``scope``: the paths choose what is reported, each file is
analysed with its whole project, as ``lint`` does), the launch sites of the reported files
and how far the model follows each:

- *resolved*: to kernel definitions (``Program.launch_kernels``), or, for a launch of the
  kernel a function receives (``def run(kernel): wp.launch(kernel, ...)``), to the kernels
  every caller in the project passes: the model lints such a launch at its call sites;
- *parameter*: the kernel comes from a parameter that no caller in the project passes,
  i.e. from the callers of the project's API, outside it;
- *installed package*: the kernel comes from a package outside the project (what its
  factory returns, an attribute of its class, a package not found): the model knows where
  it is defined but does not follow it there (no rule speaks of it). A kernel defined at
  the top of such a package's module, or held in a literal table there, is read as
  context (``outside``: another project of the repository, a package on ``sys.path``)
  and counts as resolved;
- *unresolved*: anything else, with a one-line reason named after the construct the model
  stopped at (``return value of `Registry.get` not followed``).

Beside them: generic-kernel launches whose argument types are known, launches known taped
or untaped, module option changes whose target module is known, and launches whose
block_dim is known. Rules stay silent where the model does not follow; these figures say
where that is. Nothing here changes what the model resolves: the reasons are read off the
model's own answers, descending only into the parts it answers UNRESOLVED for.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Iterable

from warp_ct.analyzer.engine import Linter, read_source, read_sources
from warp_ct.analyzer.facts import FileFacts, LaunchFact, Value
from warp_ct.analyzer.program import UNRESOLVED, FunctionRef, KernelRef, Program, handed_kernel_params, is_test_path
from warp_ct.analyzer.project import deactivate, package_layout_fixed
from warp_ct.analyzer.scope import Scope, project_files, scopes_of
from warp_ct.config import Config
from warp_ct.fs import real_path

LAUNCH_KINDS = ("launch", "launch_tiled")

# How far a reason is looked for below the launch's own expression; past it the reason
# names the construct reached (the model itself follows further).
MAX_REASON_DEPTH = 8


# ---------------------------------------------------------------------- the figures
@dataclass(frozen=True)
class LaunchSite:
    """A launch site the model does not resolve to a definition it reads, and why."""

    path: str
    line: int
    reason: str  # one line: what the model did not follow, or where the kernel comes from
    cause: str  # the kind of construct it stopped at, for grouping ("return", "attribute", ...)

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "reason": self.reason, "cause": self.cause}


@dataclass
class ProjectCoverage:
    """The figures of one project, over the launch sites of its reported files."""

    root: str
    files: int = 0  # reported files
    launches: int = 0
    resolved: int = 0
    resolved_at_call_sites: int = 0  # ... of them launching helpers' kernels, as their callers pass them
    parameter: int = 0
    external: list[LaunchSite] = field(default_factory=list)  # kernels of installed packages
    unresolved: list[LaunchSite] = field(default_factory=list)
    generic_launches: int = 0  # launch sites of a generic kernel
    generic_types_known: int = 0  # ... whose every non-literal argument has a known type
    taped: int = 0  # recorded on a wp.Tape (or adjoint=True) as the model sees it
    untaped: int = 0  # known never to be: every run reaching it starts in the project, no tape there runs it
    option_changes: int = 0  # module option changes (``set_module_options``, ``get_module(...).options``)
    option_targets_resolved: int = 0
    block_dims_known: int = 0  # launch sites whose block_dim is the default or known constants

    @property
    def followed(self) -> float:
        """The share of launch sites the model follows to where their kernel comes from:
        resolved, an API parameter or an installed package (1.0 without any)."""
        return (self.launches - len(self.unresolved)) / self.launches if self.launches else 1.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "files": self.files,
            "launches": {
                "total": self.launches,
                "resolved": self.resolved,
                "resolved_at_call_sites": self.resolved_at_call_sites,
                "parameter": self.parameter,
                "external": [launch.to_dict() for launch in self.external],
                "unresolved": [launch.to_dict() for launch in self.unresolved],
            },
            "generic_launches": {"total": self.generic_launches, "types_known": self.generic_types_known},
            "tapes": {"taped": self.taped, "untaped": self.untaped, "unknown": self.launches - self.taped - self.untaped},
            "option_changes": {"total": self.option_changes, "targets_resolved": self.option_targets_resolved},
            "block_dims": {"total": self.launches, "known": self.block_dims_known},
        }


# ---------------------------------------------------------------------- the run
def measure_paths(paths: Iterable[str], config: Config) -> list[ProjectCoverage]:
    """The figures of each project of ``paths`` (files or folders), in the order of their
    first reported file. Each project's model is built from all its files, as ``lint``
    builds it; only the reported files' launches are counted."""
    out = []
    with package_layout_fixed():
        reported = read_sources(list(paths), config)
        for scope in scopes_of(source.path for source in reported):
            files = [reported[i] for i in scope.reported]
            out.append(_measure_scope(scope, files, config))
    return out


def _measure_scope(scope: Scope, files: list, config: Config) -> ProjectCoverage:
    relative = any(not os.path.isabs(source.path) for source in files)
    named = {real_path(source.path) for source in files}
    context = [
        source
        for path in project_files(scope, config)
        if real_path(path) not in named
        and (source := read_source(os.path.relpath(path) if relative else path)).text is not None
    ]
    linter = Linter(config)
    project = linter.project
    project.root = os.path.realpath(scope.root)
    try:
        # One order for the project's files whatever was named, as ``batch`` does: module
        # names claimed first win.
        linter.add_to_project(sorted([*files, *context], key=lambda source: os.path.abspath(source.path)))
        project.freeze()
        coverage = ProjectCoverage(root=os.fspath(scope.root), files=len(files))
        sources = [project.files.get(source.path) for source in files if source.text is not None]
        members = {summary.path for summary in project.program_members()}
        facts_of = [project.facts(summary) for summary in sources if summary is not None and summary.path in members]
        if facts_of:
            measure_program(project.program(), facts_of, coverage)
        return coverage
    finally:
        deactivate(project)


def measure_program(program: Program, reported: list[FileFacts], coverage: ProjectCoverage) -> None:
    """Add the figures of the ``reported`` files' launch sites and option changes, as
    ``program`` understands them, to ``coverage``."""
    explainer = LaunchExplainer(program)
    tapes = TapeReach(program)
    for facts in reported:
        module = facts.module
        if program.modules.get(module) is None or program.modules[module].path != facts.path:
            continue  # not the file the model knows by this name (a stub beside its source)
        # The file's own sites: the model's launches of the module start with them, in
        # order (it adds copies of helpers' launches at their call sites after them).
        for index, launch in enumerate(facts.launches):
            if launch.kind not in LAUNCH_KINDS:
                continue
            coverage.launches += 1
            outcome = explainer.launch(module, index, launch)
            if outcome.status == RESOLVED:
                coverage.resolved += 1
                coverage.resolved_at_call_sites += handed_kernel_params(launch.kernel) is not None
            elif outcome.status == PARAMETER:
                coverage.parameter += 1
            elif outcome.status == EXTERNAL:
                coverage.external.append(LaunchSite(facts.path, launch.span[0], outcome.text(), outcome.cause))
            else:
                coverage.unresolved.append(LaunchSite(facts.path, launch.span[0], outcome.text(), outcome.cause))
            if any(program.kernel(ref).generic for ref in outcome.kernels):
                coverage.generic_launches += 1
                coverage.generic_types_known += _argument_types_known(program, module, launch)
            placed = tapes.placed(module, launch)
            coverage.taped += placed is True
            coverage.untaped += placed is False
            coverage.block_dims_known += _block_dim_known(program, module, launch)
        for option in facts.options:
            if option.kind == "module_options":
                coverage.option_changes += 1
                coverage.option_targets_resolved += all(t is not UNRESOLVED for t in program.option_target(module, option))
    coverage.unresolved.sort(key=lambda launch: (launch.path, launch.line, launch.reason))
    coverage.external.sort(key=lambda launch: (launch.path, launch.line, launch.reason))


def _argument_types_known(program: Program, module: str, launch: LaunchFact) -> bool:
    """Whether the types a generic kernel is instantiated with are known at this site: every
    argument, input or output, is a literal or has a known dtype (the inputs list is written
    at the launch)."""
    if launch.inputs_param is not None:
        return False
    return all(
        value.kind == "const" or "?" not in program.array_dtypes(module, launch.function, value)
        for value in (*launch.inputs, *launch.outputs)
    )


def _block_dim_known(program: Program, module: str, launch: LaunchFact) -> bool:
    """Whether the block_dims a launch can use are known: the module default (none passed)
    or integers the model resolves, as a CUDA launch sees them."""
    value = launch.block_dim
    if value is None or value == Value("const", None):
        return True
    resolved = program.resolve_on_gpu(module, launch.function, value)
    return bool(resolved) and all(isinstance(v, int) and not isinstance(v, bool) for v in resolved)


# ---------------------------------------------------------------------- why a launch is not followed
RESOLVED, PARAMETER, EXTERNAL, UNFOLLOWED = "resolved", "parameter", "external", "unresolved"
_RANK = {RESOLVED: 0, PARAMETER: 1, EXTERNAL: 2, UNFOLLOWED: 3}


@dataclass(frozen=True)
class Outcome:
    """How far the model follows one expression to kernels."""

    status: str
    kernels: frozenset = frozenset()  # the KernelRefs found (resolved parts)
    reason: str = ""  # unresolved: the innermost construct not followed
    cause: str = ""
    via: tuple[str, ...] = ()  # the constructs followed on the way there, outermost first

    def text(self) -> str:
        return self.reason + (f" (via {' -> '.join(self.via)})" if self.via else "")

    def through(self, step: str, own_reason: tuple[str, str] | None = None) -> Outcome:
        """This outcome reached through ``step`` (an expression that led to it).
        ``own_reason``: (reason, cause) that names the step itself, told instead of an
        inner reason that names nothing (an expression the facts do not keep)."""
        if self.status not in (UNFOLLOWED, EXTERNAL) or self.via[:1] == (step,):
            return self
        if own_reason is not None and self.cause == "expression":
            return Outcome(self.status, self.kernels, *own_reason)
        return Outcome(self.status, self.kernels, self.reason, self.cause, (step, *self.via))


def _combined(outcomes: Iterable[Outcome]) -> Outcome | None:
    """The outcome of an expression that can be any of several: unresolved if one is, else
    a parameter if one is, else resolved. None without any."""
    worst: Outcome | None = None
    kernels: set = set()
    for outcome in outcomes:
        kernels |= outcome.kernels
        if worst is None or _weight(outcome) > _weight(worst):
            worst = outcome
    if worst is None:
        return None
    return Outcome(worst.status, frozenset(kernels), worst.reason, worst.cause, worst.via)


def _weight(outcome: Outcome) -> tuple[int, bool]:
    """Which alternative's reason is told: the least followed; among those not followed, one
    that is not a plain function (``k = make(k)`` after ``def k``: the ``def`` is one of the
    values the model gives ``k``, the call is the reason it is not followed)."""
    return _RANK[outcome.status], outcome.cause != "function"


def _unfollowed(reason: str, cause: str) -> Outcome:
    return Outcome(UNFOLLOWED, reason=reason, cause=cause)


def _from_package(origin: str) -> Outcome:
    return Outcome(EXTERNAL, reason=f"from `{origin}`, outside the project", cause="external")


def describe(value: Value, depth: int = 0) -> str:
    """An expression as the user wrote it, roughly (``self.kernels[...]``, ``make()``)."""
    kind = value.kind
    if depth > 4:
        return "..."
    if kind in ("name", "param", "local", "kernel", "function", "class"):
        return str(value.data)
    if kind == "self":
        return "self"
    if kind == "attr":
        base = describe(value.items[0], depth + 1) if value.items else "..."
        return f"{base}.{value.data}"
    if kind == "call":
        return f"{value.data}()"
    if kind == "method" and value.items:
        return f"{describe(value.items[0], depth + 1)}.{value.data}()"
    if kind == "sub" and value.items:
        return f"{describe(value.items[0], depth + 1)}[...]"
    if kind == "elem" and value.items:
        return f"element of {describe(value.items[0], depth + 1)}"
    if kind == "const":
        return repr(value.data)[:40]
    return kind


class LaunchExplainer:
    """Classifies launch sites by how far the model follows their kernel, and says why it
    stops. It asks the model (``kernels_of_value``) at every step and descends only into the
    parts answered UNRESOLVED, so an answer here is never better than the model's."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self._project_roots = {module.split(".", 1)[0] for module in program.modules}

    def launch(self, module: str, index: int, launch: LaunchFact) -> Outcome:
        """The outcome of the ``index``-th launch of ``module`` (``launch``)."""
        kernel = launch.kernel
        params = handed_kernel_params(kernel)
        if params and launch.function:
            # A launching helper: the model lints it at each call site with the kernel passed there.
            outcomes = [self._parameter(module, launch.function, param, 0, to_callers=True) for param in params]
            outcome = _combined(outcomes)
            assert outcome is not None
            return outcome.through(f"`{kernel.data}`") if kernel.kind == "local" else outcome
        found = self.program.launch_kernels(module, index)
        if found and all(isinstance(ref, KernelRef) for ref in found):
            return Outcome(RESOLVED, frozenset(found))
        return self.value(module, launch.function, kernel, 0)

    def value(self, module: str, function: str | None, value: Value, depth: int) -> Outcome:
        program = self.program
        found = program.kernels_of_value(module, function, value)
        if found and all(isinstance(ref, KernelRef) for ref in found):
            return Outcome(RESOLVED, frozenset(found))
        if depth > MAX_REASON_DEPTH:
            return _unfollowed(f"`{describe(value)}` not followed (too deep)", "depth")
        kind = value.kind
        if kind in ("name", "call", "method", "attr", "sub", "elem"):
            origin = self._origin_outside(module, function, value, 0)
            if origin is not None:  # ``bundle = ext.get_kernel(...); bundle.fill``
                return _from_package(origin)
        if kind == "param":
            return self._parameter(module, function, value.data, depth, to_callers=False)
        if self._part_of_api_parameter(module, function, value):  # ``overloads[key]`` of an API's table
            return Outcome(PARAMETER)
        if kind in ("local", "choice", "tuple", "dict"):
            items = value.items[len(value.items) // 2:] if kind == "dict" else value.items
            step = f"`{value.data}`" if kind == "local" else None
            outcome = self._any_of([(module, function, item) for item in items], depth)
            if outcome is None:
                return _unfollowed(f"`{describe(value)}` holds no kernel the model sees", "local" if kind == "local" else "expression")
            return outcome.through(step) if step else outcome
        if kind == "name":
            return self._name(module, function, value, depth)
        if kind == "call":
            return self._call(module, function, value, depth)
        if kind == "attr":
            return self._attribute(module, function, value, depth)
        if kind == "method":
            return _unfollowed(f"return value of `{describe(value)}` not followed", "return")
        if kind == "sub" and value.items and value.items[0].kind == "elem":
            value = value.items[0]  # ``for name, kernel in table.items()``: a part of a loop element
            kind = "elem"
        if kind == "sub":
            base = describe(value.items[0]) if value.items else "..."
            return _unfollowed(f"subscript of `{base}` not followed", "subscript")
        if kind == "elem":
            iterated = describe(value.items[0]) if value.items else "..."
            return _unfollowed(f"loop element of `{iterated}` not followed", "element")
        if kind == "kernel":
            return _unfollowed(f"kernel `{value.data}` not found in `{module}`", "kernel")
        if kind == "function":
            return self._function(module, value.data)
        if kind == "class":
            return _unfollowed(f"`{value.data}` is a class, not a kernel the model knows", "class")
        if kind == "const":
            return _unfollowed(f"the constant {describe(value)} is not a kernel", "expression")
        return _unfollowed(f"{'computed value' if kind in ('binop', 'changed') else 'expression'} not followed", "expression")

    def _any_of(self, alternatives: list[tuple[str, str | None, Value]], depth: int) -> Outcome | None:
        """The combined outcome of the alternatives that can hold kernels (a literal beside a
        kernel in a table row holds none)."""
        outcomes = []
        for module, function, item in alternatives:
            if item.kind == "param":
                outcomes.append(self._parameter(module, function, item.data, depth + 1, to_callers=False))
            elif self.program.kernels_of_value(module, function, item):
                outcomes.append(self.value(module, function, item, depth + 1))
        return _combined(outcomes)

    def _part_of_api_parameter(self, module: str, function: str | None, value: Value) -> bool:
        """``value`` is an entry or an attribute of a parameter no call in the project passes
        (``def dispatch(table, key): wp.launch(table[key], ...)``, ``family.single``): like
        the parameter itself, it comes from the callers of the project's API."""
        if function is None:
            return False
        kind = value.kind
        while kind in ("sub", "attr") and value.items and value.items[0].kind != "self":
            value = value.items[0]
            kind = value.kind
        if kind == "name" and "." in value.data:
            name = value.data.split(".", 1)[0]
        elif kind == "param":
            name = value.data
        else:
            return False
        ref = FunctionRef(module, function)
        fact = self.program.function(ref)
        if fact is None or name not in fact.params or name in fact.locals:
            return False
        return not self.program.callers(ref)

    def _parameter(self, module: str, function: str | None, name: str, depth: int, *, to_callers: bool) -> Outcome:
        """A parameter: from the API's callers when no caller in the project passes it; else,
        where the model follows it (``to_callers``: the kernel a launching helper receives),
        what each caller passes."""
        if function is None:
            return _unfollowed(f"`{name}` not followed", "name")
        ref = FunctionRef(module, function)
        program = self.program
        if not program.callers(ref):
            return Outcome(PARAMETER)
        where = f"parameter `{name}` of `{function}`"
        if not to_callers:
            return _unfollowed(f"{where} not followed to its callers", "parameter")
        if depth > 3:  # as far as the model hands a kernel from helper to helper
            return _unfollowed(f"{where} handed on through too many helpers", "parameter")
        passed = program.passed_values(ref, name)
        if passed is None:
            return _unfollowed(f"{where}: a call leaves it out", "parameter")
        outcomes = []
        for caller_module, caller, argument in passed:
            if argument.kind == "param":
                outcomes.append(self._parameter(caller_module, caller, argument.data, depth + 1, to_callers=True))
            else:
                outcomes.append(self.value(caller_module, caller, argument, depth + 1))
        outcome = _combined(outcomes)
        return outcome.through(f"`{name}`") if outcome is not None else Outcome(PARAMETER)

    def _name(self, module: str, function: str | None, value: Value, depth: int) -> Outcome:
        program = self.program
        facts = program.modules[module]
        dotted = value.data
        if dotted in facts.globals:
            outcome = self._any_of([(module, None, item) for item in facts.globals[dotted]], depth)
            if outcome is None:
                return _unfollowed(f"global `{dotted}` holds no kernel the model sees", "name")
            return outcome.through(f"`{dotted}`")
        resolved = program.resolve_dotted(dotted)
        if resolved is not None and resolved[0] in program.modules and resolved != (module, dotted):
            return self.value(resolved[0], None, Value("name", resolved[1]), depth + 1)
        head = dotted.split(".", 1)[0]
        if "." in dotted and head in facts.classes:
            return _unfollowed(f"class attribute `{dotted}` not followed", "class-attribute")
        if "." in dotted:
            return _unfollowed(f"attribute `{dotted}` not followed", "attribute")
        enclosing = self._enclosing_binder(module, function, dotted)
        if enclosing is not None:
            return _unfollowed(f"`{dotted}` of the enclosing function `{enclosing}` not followed", "closure")
        fact = program.function(FunctionRef(module, function)) if function else None
        if fact is not None and fact.parent is not None:
            return _unfollowed(f"`{dotted}` of an enclosing function not followed", "closure")
        return _unfollowed(f"name `{dotted}` not followed", "name")

    def _enclosing_binder(self, module: str, function: str | None, name: str) -> str | None:
        """The enclosing function of ``function`` that binds ``name`` (a closure variable)."""
        program = self.program
        kernels = program.modules[module].kernels
        fact = program.function(FunctionRef(module, function)) if function else None
        while fact is not None and fact.parent is not None:
            fact = program.function(FunctionRef(module, fact.parent))
            if fact is None:
                break
            if name in fact.locals or name in fact.params or any(
                kernel.name == name and kernel.function == fact.qualname for kernel in kernels
            ):
                return fact.qualname
        return None

    def _origin_outside(self, module: str, function: str | None, value: Value, depth: int) -> str | None:
        """The name outside the project that every alternative of ``value`` comes from: a
        name imported from another package (``warp.sim.collide.count_contact_points``), an
        attribute or an entry of one (``ext.table[dtype]``), what a function of another
        package returns (``bundle = ext.get_kernel(...); bundle.fill``), through locals.
        None when a part comes from the project, or from a call of Warp's own API (which
        builds kernels of the project's functions: ``fem.cache.dynamic_kernel(f)``)."""
        if depth > MAX_REASON_DEPTH:
            return None
        kind = value.kind
        if kind == "name":
            dotted = value.data
            if self._outside(module, dotted):
                return dotted
            head = dotted.split(".", 1)[0]
            fact = self.program.function(FunctionRef(module, function)) if function else None
            if "." in dotted and fact is not None and head in fact.locals:
                origins = {self._origin_outside(module, function, item, depth + 1) for item in fact.locals[head]}
                return origins.pop() if len(origins) == 1 else None
            return None
        if kind == "call":
            callee = value.data
            if not callee or callee.split(".", 1)[0] == "warp":
                return None
            caller = self.program.function(FunctionRef(module, function)) if function else None
            if self.program.resolve_call(module, caller, callee) is None and self._outside(module, callee):
                return callee
            return None
        if kind in ("attr", "method", "sub", "elem") and value.items and value.items[0].kind != "self":
            return self._origin_outside(module, function, value.items[0], depth + 1)
        if kind == "local" and value.items:
            origins = {self._origin_outside(module, function, item, depth + 1) for item in value.items}
            return origins.pop() if len(origins) == 1 else None
        return None

    def _outside(self, module: str, dotted: str) -> bool:
        """Whether a dotted, import-resolved name is imported from a package that is not the
        project's (``warp.sim.x``, ``torch.y``), not an attribute of a local object."""
        for target in self.program.modules[module].aliases.values():
            if dotted == target or dotted.startswith(target + "."):
                return target.split(".", 1)[0] not in self._project_roots
        return False

    def _call(self, module: str, function: str | None, value: Value, depth: int) -> Outcome:
        program = self.program
        callee = value.data
        if not callee:  # ``table[name](dtype)``: the facts keep no name for what is called
            return _unfollowed("return value of a computed call not followed", "expression")
        caller = program.function(FunctionRef(module, function)) if function else None
        target = program.resolve_call(module, caller, callee)
        if target is None:
            if self._outside(module, callee):  # Warp's own API, building a kernel of the project's code
                return _unfollowed(f"return value of `{callee}` (outside the project) not followed", "external")
            return _unfollowed(f"return value of `{callee}` not followed", "return")
        fact = program.function(target)
        if target.qualname.endswith(".__init__"):
            return _unfollowed(f"object built by `{callee}()` not followed", "object")
        returns = fact.returns if fact is not None else []
        if not returns:
            return _unfollowed(f"return value of `{target.qualname}` not followed (it returns nothing the model reads)", "return")
        alternatives = []
        for returned in returns:
            if returned.kind == "param":  # handed back from the call's own argument
                return _unfollowed(f"return value of `{target.qualname}` (its parameter `{returned.data}`) not followed", "return")
            alternatives.append((target.module, target.qualname, returned))
        outcome = self._any_of(alternatives, depth)
        if outcome is None or outcome.status == RESOLVED:
            return _unfollowed(f"return value of `{target.qualname}` not followed", "return")
        return outcome.through(f"`{target.qualname}()`", (f"return value of `{target.qualname}` not followed", "return"))

    def _attribute(self, module: str, function: str | None, value: Value, depth: int) -> Outcome:
        program = self.program
        base = value.items[0] if value.items else None
        if base is None or base.kind != "self":
            return _unfollowed(f"attribute `{describe(value)}` not followed", "attribute")
        attr = f"self.{value.data}"
        class_name = program.class_of(FunctionRef(module, function)) if function else None
        if class_name is None:
            return _unfollowed(f"attribute `{attr}` not followed (not in a method)", "attribute")
        alternatives = [(where.module, where.qualname, item) for where, item in program.self_attr_values(module, class_name, value.data)]
        getter = program.method(module, class_name, value.data)
        if getter is not None and program.is_property(getter):
            alternatives += [(getter.module, getter.qualname, item) for item in program.function(getter).returns]  # type: ignore[union-attr]
        if not alternatives:
            return _unfollowed(f"attribute `{attr}` not followed (no method of `{class_name}` assigns it)", "attribute")
        outcome = self._any_of(alternatives, depth)
        if outcome is None or outcome.status == RESOLVED:
            return _unfollowed(f"attribute `{attr}` not followed", "attribute")
        return outcome.through(f"`{attr}`", (f"attribute `{attr}` not followed", "attribute"))

    def _function(self, module: str, qualname: str) -> Outcome:
        fact = self.program.function(FunctionRef(module, qualname))
        decorators = [d for d in fact.decorators if d] if fact is not None else []
        if decorators:
            return _unfollowed(f"`{qualname}` is a function decorated with `{decorators[0]}`, not a kernel the model knows",
                               "decorator")  # fmt: skip
        return _unfollowed(f"`{qualname}` is a Python function, not a kernel", "function")


# ---------------------------------------------------------------------- taped or not
class TapeReach:
    """Whether a launch is recorded on a ``wp.Tape``, as the model's ``tapes`` part sees
    tapes: inside a tape block, ``adjoint=True``, or in a function a call made inside a tape
    block runs. A launch is known untaped when it is none of these, every run that reaches
    it starts in the project (a module body, a ``__main__`` block, a test), and no tape over
    code the model cannot name may reach its module (the modules such a tape's file imports,
    and those whose kernels are handed on as values: what WCT010 takes such a tape to reach);
    or when it runs only while the tape is suspended (``Program.launch_recordable``)."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self._taped, opaque = self._taped_functions()
        self._opaque_reach = self._reached_from(opaque)
        self._placed: dict[FunctionRef, bool] = {}

    def placed(self, module: str, launch: LaunchFact) -> bool | None:
        """True: taped; False: known untaped; None: unknown."""
        adjoint = launch.adjoint is not None and launch.adjoint != Value("const", False)
        ref = FunctionRef(module, launch.function or "<module>")
        if adjoint or self.program.taped(launch) or ref in self._taped and not self.program.suspended(launch):
            return True
        if self.program.suspends_anything() and not self.program.launch_recordable(module, launch):
            return False  # runs only while the tape is suspended: no tape, followed or not, records it
        if module in self._opaque_reach:
            return None
        return False if self._runs_start_in_project(ref) else None

    def _taped_functions(self) -> tuple[set[FunctionRef], set[str]]:
        """(the functions a call inside a tape block runs, transitively; the Python modules
        with a call inside a tape block that the model cannot name)."""
        program = self.program
        starts: list[FunctionRef] = []
        opaque: set[str] = set()
        for module, facts in program.modules.items():
            scopes = [(fact, fact.calls) for fact in facts.functions.values()]
            scopes.append((None, facts.module_calls + facts.main_calls))
            for fact, calls in scopes:
                for call in calls:
                    if not program.taped(call):  # the model's reading of the ``with`` blocks around it
                        continue
                    # The ``tapes`` part's own reading of a taped call (its private helpers:
                    # the figures must be the model's, not a second opinion).
                    target = program.resolve_call(module, fact, call.callee) or program._patched(call.callee)
                    if target is not None:
                        starts.append(target)
                    elif (named := program.unfollowed_in_tape(module, fact, call.callee, module)) is not None:
                        # ``self.policy.act(x)``: any project method of that name, as ``tapes`` reads it.
                        starts.extend(named)
                        if not named:
                            opaque.add(module)
        callees: dict[FunctionRef, list[FunctionRef]] = {}
        for ref, _fact in program.functions():
            for caller, _module, call in program.callers(ref):
                if caller is not None and not (call.withs and program.suspended(call)):  # as ``Program.taped_closure``
                    callees.setdefault(caller, []).append(ref)
        taped: set[FunctionRef] = set()
        while starts:
            ref = starts.pop()
            if ref not in taped:
                taped.add(ref)
                starts.extend(callees.get(ref, ()))
        return taped, opaque

    def _reached_from(self, modules: set[str]) -> set[str]:
        if not modules:
            return set()
        program = self.program
        escaped = program.escaped_kernel_modules()
        reached = set(modules)
        for module in modules:
            reached |= program.imported_directly(module)
            reached |= program.imported_closure(module) & escaped
        return reached

    def _runs_start_in_project(self, ref: FunctionRef) -> bool:
        known = self._placed.get(ref)
        if known is None:
            known = self._placed[ref] = all(self._starts_in_project(flow) for flow in self.program.reaching([ref]))
        return known

    def _starts_in_project(self, flow: FunctionRef) -> bool:
        """A flow with callers in the project is placed by them; one without is a run's start
        (a module body, ``__main__``, a test) or reached from outside (an API, a callback)."""
        program = self.program
        if flow.qualname in ("<module>", "<main>") or program.callers(flow):
            return True
        fact = program.function(flow)
        if fact is not None and fact.parent is not None:
            return True  # a nested function: its parent is in the closure
        return flow.module in program.modules and is_test_path(program.project_path(flow.module))
