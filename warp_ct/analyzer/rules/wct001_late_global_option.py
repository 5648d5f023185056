"""WCT001 late-global-option."""

from __future__ import annotations

import ast
import builtins
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from warp_ct.analyzer import syntax, textscan
from warp_ct.analyzer.context import FileContext
from warp_ct.analyzer.model import Applicability, Severity
from warp_ct.analyzer.facts import TEARDOWN_NAMES, OptionFact, Value
from warp_ct.analyzer.program import FunctionRef, ImportDefinition, Program
from warp_ct.analyzer.rules.base import Rule

if TYPE_CHECKING:
    from warp_ct.analyzer.project import FileSummary, Project

# Copied from wp.config when a module object is created (its first kernel/function/struct,
# i.e. at import). Options read at hash time (mode, optimization_level, ...) are not here.
DEADLINE_OPTIONS = frozenset(
    {"enable_backward", "max_unroll", "lineinfo", "compile_time_trace", "deterministic", "deterministic_max_records"}
)
# What ``wp.config`` holds for them when nothing set them (warp/config.py, Warp 1.19):
# assigning that value late changes nothing, unless some other assignment set another one.
_DEFAULTS: dict[str, object] = {
    "enable_backward": True, "max_unroll": 16, "lineinfo": False, "compile_time_trace": False,
    "deterministic_max_records": 0,
}  # fmt: skip
_DEFAULT_DETERMINISTIC = frozenset({"warp.DeterministicMode.NOT_GUARANTEED", "warp.config.DeterministicMode.NOT_GUARANTEED"})
_NO_VALUE = object()
_RULE = "WCT001"
_WARP_DEFINITIONS = ("kernel", "func", "struct", "func_native", "func_grad", "func_replay")
# ``<option> = ``, ``<option> += ``, ``<option>: T = `` (not ``==``).
_OPTION_ASSIGNMENT_TEXT = (
    r"\b(?:enable_backward|max_unroll|lineinfo|compile_time_trace|deterministic(?:_max_records)?)\b"
    r"\s*(?::[^=\n]*)?(?:\*\*|//|>>|<<|[-+*/%&|^@])?=(?!=)"
)
_OPTION_ASSIGNMENT_RE = re.compile(_OPTION_ASSIGNMENT_TEXT)
# Async defs, loops and withs define and import like the plain forms. ``try``/``except*``
# (``ast.TryStar``) bodies are not searched.
_DEF_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOP_TYPES = (ast.For, ast.AsyncFor, ast.While)
_WITH_TYPES = (ast.With, ast.AsyncWith)
# Globals Python sets in every module before its first line runs (``__path__`` too in a package).
_MODULE_ATTRS = frozenset({"__name__", "__doc__", "__file__", "__package__"})


@dataclass(frozen=True)
class _Event:
    """Something that created Warp modules before the assignment ran."""

    node: ast.stmt  # the import statement or the decorated def
    line: int  # 1-based line where it starts (decorators included)
    what: str  # for the message
    top: ast.stmt | None  # the module-level statement that holds it (for the fix), or None



class LateGlobalOption(Rule):
    code = "WCT001"
    name = "late-global-option"
    severity = Severity.WARNING
    summary = "A `wp.config` option that modules copy when they are created is set after kernels already exist"
    fix_applicability = Applicability.UNSAFE
    # ``setattr(wp.config, key, value)`` names no option in the text (options from a config
    # file or ``--warp-config``): the facts decide in ``needs_tree``.
    triggers = (_OPTION_ASSIGNMENT_TEXT, r"\bsetattr\s*\(")
    docs = '''
    ## What it does
    Flags an assignment to `wp.config.enable_backward`, `max_unroll`, `lineinfo`,
    `compile_time_trace`, `deterministic` or `deterministic_max_records` that runs after
    kernels were already defined: after importing a module of your project that defines
    kernels (directly, through its own imports, or through a `from pkg import *` whose
    package imports them), or after a `@wp.kernel` earlier in the same file. Also where
    the kernels were created before the file itself ran: a package above the file whose
    `__init__.py` imports kernel modules before this file (Python runs it first; a pytest
    `conftest.py` inside such a package too), a function that callers run after importing a
    submodule of such a package, and a module-level setting in a file that every importer
    imports after a kernel module.

    ## Why it costs compile time
    Each Python module that defines Warp kernels gets a Warp module the moment its first
    kernel, function or struct is defined, and that module copies these options from
    `wp.config` right then. Setting them later changes nothing for modules that already
    exist: `enable_backward = False` set after the imports still generates (and compiles)
    backward code for every kernel imported before it, silently.

    Options that Warp reads when it computes the module hash (`mode`,
    `optimization_level`, `cpu_compiler_flags`, ...) are not affected: setting those
    before the first launch is fine.

    ## Example
    ```python
    # file: sim/kernels.py
    import warp as wp

    @wp.kernel
    def step(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = x[i] + 1.0
    # file: main.py
    import warp as wp
    from sim import kernels

    wp.config.enable_backward = False  # WCT001
    # file: sim/__init__.py
    ```

    ```python
    import warp as wp

    @wp.kernel
    def step(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = x[i] + 1.0

    wp.config.lineinfo = True  # WCT001
    ```

    ## Use instead
    Set the option at the top of the entry point, before anything that defines kernels is
    imported:
    ```python
    # file: sim/kernels.py
    import warp as wp

    @wp.kernel
    def step(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = x[i] + 1.0
    # file: main.py
    import warp as wp

    wp.config.enable_backward = False

    from sim import kernels
    # file: sim/__init__.py
    ```

    Or change the module that already exists, before its first launch:
    ```python
    import warp as wp
    from sim import kernels

    wp.get_module(kernels.__name__).options.update({"enable_backward": False})
    ```

    ## When not to apply
    Options read at hash time may be set at any point before the first launch:
    ```python
    import warp as wp

    @wp.kernel
    def step(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = x[i] + 1.0

    wp.config.mode = "debug"
    wp.config.optimization_level = 1
    ```
    Setting the value Warp already has by default (Warp 1.19's `warp/config.py`:
    `enable_backward = True`, `max_unroll = 16`, `lineinfo = False`,
    `compile_time_trace = False`, `deterministic = wp.DeterministicMode.NOT_GUARANTEED`,
    `deterministic_max_records = 0`) is not reported, however late: the kernels made
    before it have that value already. It still is when another assignment of the same
    option anywhere in the linted program sets a different value, or one warp-ct cannot
    read (putting the default back late leaves the earlier kernels with the other value):
    ```python
    import warp as wp

    @wp.kernel
    def step(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = x[i] + 1.0

    wp.config.lineinfo = False
    wp.config.enable_backward = True
    ```
    Nor is a setting that the same function also writes into the options of every module
    it loops over (a library switching a mode for all its kernels): the modules that exist
    get the value there, and later ones copy it from `wp.config`:
    ```python
    import warp as wp

    @wp.kernel
    def step(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = x[i] + 1.0

    def set_deterministic(mode, modules):
        wp.config.deterministic = mode
        for module in modules:
            module.options["deterministic"] = mode
            module.mark_modified()
    ```
    Importing a third-party library that defines kernels is not reported (warp-ct cannot
    see its files); the same deadline applies to it. The automatic fix moves the
    assignment above the first import or kernel that comes before it; it is unsafe
    because the import it jumps over might have been meant to run first (for example,
    one that configures Warp itself).
    '''

    # ------------------------------------------------------------------ check
    def needs_tree(self, summary: "FileSummary", project: "Project") -> bool:
        # The check reads assignments to an attribute (``<config>.<option> = ...``, ``+=``,
        # ``: T = ...``): the option's name right after a dot. Keywords (``@wp.kernel(
        # enable_backward=False)``) and dict keys are the many other mentions.
        text = summary.text
        changes = [o for o in project.facts(summary).options if o.kind == "config"]
        if any(name == "*" or name in DEADLINE_OPTIONS for o in changes for name in o.options):
            return True  # ``wp.config.X = ...`` (through the file's imports), ``setattr(wp.config, ...)``
        if not project.facts_may_miss_warp_names(summary):
            return False  # the facts saw every assignment
        for match in textscan.finditer_at(_OPTION_ASSIGNMENT_RE, DEADLINE_OPTIONS, text):
            before = match.start() - 1
            while before >= 0 and text[before] in " \t\\\r\n":  # spaces, line continuations
                before -= 1
            if before >= 0 and text[before] == ".":
                return True
        return False

    def visit_assign(self, node: ast.Assign, ctx: FileContext) -> None:
        for target in node.targets:
            self._check_target(node, target, ctx)

    def visit_augassign(self, node: ast.AugAssign, ctx: FileContext) -> None:
        self._check_target(node, node.target, ctx)

    def visit_annassign(self, node: ast.AnnAssign, ctx: FileContext) -> None:
        if node.value is not None:
            self._check_target(node, node.target, ctx)

    def visit_call(self, node: ast.Call, ctx: FileContext) -> None:
        """``setattr(wp.config, "enable_backward", False)``, and ``setattr(wp.config, k, v)``
        applying options from the command line or a config file."""
        if not (isinstance(node.func, ast.Name) and node.func.id == "setattr" and len(node.args) >= 3):
            return
        if ctx.warp_name(node.args[0]) != "warp.config":
            return
        name = node.args[1]
        option = name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else None
        if option is not None and option not in DEADLINE_OPTIONS:
            return
        stmt = syntax.statement_of(node)
        if stmt is None or _in_teardown(stmt):
            return
        late = self._late(stmt, ctx)
        if late is None:
            return
        if option is not None and _assigns_the_default(option, node.args[2], node.lineno, ctx):
            return  # the value Warp has already: nothing arrives late
        if option is not None and _reapplied_to_modules(stmt, option):
            return  # also written into every existing module's options
        if option is not None:
            ctx.report(node, f"`wp.config.{option}` is set too late: modules copy it when their first kernel is "
                             f"defined, and {late}, so those kernels keep the old value.")  # fmt: skip
        else:
            ctx.report(
                node,
                f"`wp.config` options are set by name here after kernels were created ({late}): options that "
                "modules copy when they are created (enable_backward, max_unroll, lineinfo, ...) never reach "
                "those kernels. Apply such options before the imports, at the entry point.",
                severity=Severity.INFO,
            )

    def _late(self, stmt: ast.stmt, ctx: FileContext) -> str | None:
        """Why kernels already exist when ``stmt`` runs (None: not shown)."""
        events = self._events_before(stmt, ctx)
        if events:
            return f"{events[0].what} already did"
        return _late_elsewhere(stmt, ctx)

    def _check_target(self, stmt: ast.stmt, target: ast.expr, ctx: FileContext) -> None:
        if not isinstance(target, ast.Attribute):  # a target Attribute is always a store
            return
        option = target.attr
        if option not in DEADLINE_OPTIONS:
            return
        owner = ctx.warp_name(target.value)
        if owner != "warp.config":
            return
        if _saves_old_value(stmt, option, ctx) or _in_teardown(stmt):
            return  # a temporary change, restored later: it targets modules created meanwhile
        if _reapplied_to_modules(stmt, option):
            return  # also written into every existing module's options: none keeps the old value
        events = self._events_before(stmt, ctx)
        if not events:
            late = _late_elsewhere(stmt, ctx)
            if late is not None and not _sets_the_default(stmt, option, ctx):
                ctx.report(stmt, f"`wp.config.{option}` is set too late: modules copy it when their first kernel is "
                                 f"defined, and {late}, so those kernels keep the old value. Set it at the entry "
                                 "point before those imports.")  # fmt: skip
            return
        if _sets_the_default(stmt, option, ctx):
            return  # the value Warp has already: nothing arrives late
        first = events[0]
        message = (
            f"`wp.config.{option}` is set too late: modules copy it when their first kernel is "
            f"defined, and {first.what} already did, so {_they(events)} keep the old value. "
            f"Set it before line {first.line}."
        )
        fixes = []
        fix = _move_fix(stmt, first, ctx)
        if fix is not None:
            fixes.append(fix)
        ctx.report(stmt, message, fixes=fixes)

    # ------------------------------------------------------------------ flow
    def _events_before(self, stmt: ast.stmt, ctx: FileContext) -> list[_Event]:
        """Kernel-creating events that certainly ran before ``stmt`` (earliest first)."""
        cache = ctx.state.setdefault(self.code, {})
        if "module_events" not in cache:
            cache["module_events"] = list(_events_in(ctx.tree.body, ctx, top=None))
        module_events: list[_Event] = cache["module_events"]
        enclosing = syntax.enclosing_functions(stmt)
        if not enclosing:
            return [e for e in module_events if e.line < stmt.lineno]
        outermost = enclosing[-1]
        top = _module_statement(outermost)
        # A function can only run after its own definition: everything at module level
        # above it has happened. Inside the function, what comes before the assignment too.
        limit = top.lineno if top is not None else outermost.lineno
        found = [e for e in module_events if e.line < limit]
        for func in reversed(enclosing):
            found.extend(e for e in _events_in(func.body, ctx, top=None) if e.line < stmt.lineno)
        return sorted(found, key=lambda e: e.line)


def _qualname(functions: list[ast.FunctionDef | ast.AsyncFunctionDef]) -> str:
    """The facts' qualname of the innermost of ``functions`` (innermost first)."""
    outer = functions[-1]
    parts = []
    parent = getattr(outer, "parent", None)
    while isinstance(parent, ast.ClassDef):
        parts.insert(0, parent.name)
        parent = getattr(parent, "parent", None)
    name = ".".join([*parts, outer.name])
    for inner in reversed(functions[:-1]):
        name = f"{name}.<locals>.{inner.name}"
    return name


def _late_elsewhere(stmt: ast.stmt, ctx: FileContext) -> str | None:
    """Why kernels exist when ``stmt`` runs, from outside its own flow: the callers of its
    function ran kernel-creating imports first, the packages above this file created kernels
    before they imported it, or every module that imports this file (its module-level
    statements run at that import) imported a kernel-creating module first."""
    function = syntax.enclosing_functions(stmt)
    if function:
        late = _late_through_callers(ctx, _qualname(function))
        if late is not None:
            return late
    late = _late_by_package(ctx)
    if late is not None or function:
        return late
    return _late_by_importers(ctx)


def _late_by_package(ctx: FileContext) -> str | None:
    """A package above this file whose ``__init__`` creates kernels before it imports this
    file (or never imports it): Python runs that ``__init__`` before this file's body, so
    the file's statements and functions all run after those kernels exist (a pytest
    ``conftest.py`` inside the package: the package is imported first)."""
    project, name = ctx.project, ctx.module_name
    parts = name.split(".")
    for cut in range(1, len(parts)):
        package = ".".join(parts[:cut])
        summary = project.module(package)
        if summary is None:
            continue
        found = _kernels_before_importing(project, summary, name)
        if found is not None:
            return (f"the package `{package}`, which Python imports before this file, "
                    f"{found}")  # fmt: skip
    return None


def _kernels_before_importing(project: "Project", summary: "FileSummary", target: str) -> str | None:
    """What in ``summary``'s module body creates kernels before the body imports ``target``
    (its first module-level import whose import-time closure holds ``target``; the whole
    body when none does), for the message; None when nothing does."""
    facts = project.facts(summary)
    limit = None
    for imported, lineno, top in facts.imports:
        if not top or (limit is not None and lineno >= limit) or imported == summary.module_name:
            continue
        if imported == target or imported.startswith(target + ".") or _imports_at_import_time(project, imported, target):
            limit = lineno
    for definition in project.program().import_definitions(facts.module):
        if limit is None or definition.line < limit:
            return f"defines {_shown(definition)} first"
    for imported, lineno, top in facts.imports:
        if not top or (limit is not None and lineno >= limit) or imported.startswith("warp"):
            continue
        other = project.module(imported)
        if other is None or other.module_name in (summary.module_name, target):
            continue
        if project.defines_kernels_transitively(other):
            return f"imports `{other.module_name}` (line {lineno}), which creates kernels, first"
    return None


def _imports_at_import_time(project: "Project", start: str, target: str, depth: int = 0) -> bool:
    """Importing ``start`` imports ``target`` (through module-level imports, bounded)."""
    summary = project.module(start)
    if summary is None:
        return False
    seen = {summary.module_name}
    stack = [summary]
    while stack and len(seen) < 500:
        current = stack.pop()
        for dep in project.imported_at_import_time(current):
            if dep.module_name == target:
                return True
            if dep.module_name not in seen:
                seen.add(dep.module_name)
                stack.append(dep)
    return False


def _late_by_importers(ctx: FileContext) -> str | None:
    """A module-level statement runs when the file is first imported: when every project
    module that imports it does so at its own top level, after an import that created
    kernels (or after its own kernels), the statement comes after them in every run. Not
    for a file that is itself an entry point (a run may start there), nor one imported
    inside a function anywhere (that import's time is not followed)."""
    program, project, name = ctx.program, ctx.project, ctx.module_name
    if name in program.entry_modules() or name.rsplit(".", 1)[-1] in ("__main__", "conftest"):
        return None
    first: str | None = None
    importers = 0
    for module, facts in program.modules.items():
        if module == name or name.startswith(module + "."):
            continue  # a package above: ``_late_by_package``'s question
        lines = [(lineno, top) for imported, lineno, top in facts.imports if imported == name]
        if not lines:
            continue
        importers += 1
        if not all(top for _line, top in lines):
            return None
        line = min(lineno for lineno, _top in lines)
        why = None
        for definition in program.import_definitions(module):
            if definition.line < line:
                why = f"`{module}` defines {_shown(definition)}"
                break
        if why is None:
            for imported, lineno, top in facts.imports:
                if not top or lineno >= line or imported.startswith("warp"):
                    continue
                other = project.module(imported)
                if other is None or other.module_name in (module, name):
                    continue
                if project.defines_kernels_transitively(other) or _package_creates_kernels(project, imported, module):
                    why = f"`{module}` imports `{other.module_name}` (line {lineno}), which creates kernels,"
                    break
        if why is None:
            return None
        if first is None:
            first = f"{why} before it imports this file (line {line})"
    return first if importers else None


def _package_creates_kernels(project: "Project", imported: str, importer: str) -> bool:
    """Importing ``imported`` from ``importer`` runs the ``__init__`` of each package above
    it to the end first (unless ``importer`` is itself inside that package, whose
    ``__init__`` may still be running): one of them creates kernels."""
    parts = imported.split(".")
    for cut in range(1, len(parts)):
        package = ".".join(parts[:cut])
        if importer == package or importer.startswith(package + "."):
            continue
        summary = project.module(package)
        if summary is not None and project.defines_kernels_transitively(summary):
            return True
    return False


def _late_through_callers(ctx: FileContext, qualname: str, depth: int = 0, seen: set | None = None) -> str | None:
    """A call path that reaches the function after some project module that defines
    kernels was imported: "`app.main` imports `app.sim` (line 3), which defines kernels,
    before it calls `setup()` (line 12)"."""
    program, project = ctx.program, ctx.project
    seen = seen if seen is not None else set()
    ref = FunctionRef(ctx.module_name if depth == 0 else qualname.split("|")[0], qualname.split("|")[-1])
    if ref in seen or depth > 4:
        return None
    seen.add(ref)
    for caller, caller_module, call in program.callers(ref):
        facts = program.modules.get(caller_module)
        if facts is None:
            continue
        line = call.span[0]
        at_module_level = caller is None or caller.qualname == "<main>"
        for imported, lineno, top in facts.imports:
            if not top or (at_module_level and lineno >= line):
                continue
            if imported.startswith("warp"):
                continue
            summary = project.module(imported)
            if summary is None or summary.module_name in (caller_module, ref.module):
                summary = None
            if summary is not None and project.defines_kernels_transitively(summary):
                what = "defines kernels" if project.creates_kernels_at_import(summary) else "imports modules that define kernels"
                return (f"`{caller_module}` imports `{summary.module_name}` (line {lineno}), which {what}, "
                        f"before it calls `{ref.qualname}()` (line {line})")  # fmt: skip
            if _package_creates_kernels(project, imported, caller_module):
                what = "whose package creates kernels when it is imported"
                shown = summary.module_name if summary is not None else imported
                return (f"`{caller_module}` imports `{shown}` (line {lineno}), {what}, "
                        f"before it calls `{ref.qualname}()` (line {line})")  # fmt: skip
        for definition in program.import_definitions(caller_module):
            if not at_module_level or definition.line < line:
                return (f"`{caller_module}` defines {_shown(definition)} before it "
                        f"calls `{ref.qualname}()` (line {line})")  # fmt: skip
        if caller is not None and caller.qualname not in ("<main>", "<atexit>"):
            found = _late_through_callers(ctx, f"{caller_module}|{caller.qualname}", depth + 1, seen)
            if found:
                return found
    return None


def _shown(definition: ImportDefinition) -> str:
    """A definition made at import, for a message: "the kernel `step` (line 12)"."""
    if definition.kind == "call":
        return f"the kernels of `{definition.name}()` (line {definition.line})"
    what = {"kernel": "the kernel", "func": "the Warp function", "struct": "the struct"}[definition.kind]
    return f"{what} `{definition.name}` (line {definition.line})"


def _reading_scope(node: ast.AST) -> ast.AST:
    """``syntax.scope_of``, except that a decorator counts for the scope around the
    decorated def/class: it runs there, when the ``def``/``class`` statement does."""
    child = node
    for ancestor in syntax.ancestors(node):
        if isinstance(ancestor, (*_DEF_TYPES, ast.ClassDef)) and any(d is child for d in ancestor.decorator_list):
            return _reading_scope(ancestor.parent)
        child = ancestor
    return syntax.scope_of(node)


def _saves_old_value(stmt: ast.stmt, option: str, ctx: FileContext) -> bool:
    """The same flow reads ``wp.config.<option>`` (``old = wp.config.x`` ... restore)."""
    scope = syntax.scope_of(stmt)
    # In a method, the save may sit in a sibling method (setUpClass ... tearDownClass).
    klass = next((a for a in syntax.ancestors(stmt) if isinstance(a, ast.ClassDef)), None)
    region = klass if klass is not None else scope
    for attr in syntax.nodes_of_class(region, ast.Attribute):
        if attr.attr != option or not isinstance(attr.ctx, ast.Load):
            continue
        if klass is None and _reading_scope(attr) is not scope:
            continue
        if ctx.warp_name(attr.value) == "warp.config":
            return True
    return False


def _reapplied_to_modules(stmt: ast.stmt, option: str) -> bool:
    """The same function also writes the option into the options of each module of a loop
    (``for module in modules.values(): module.options["deterministic"] = mode;
    module.mark_modified()``, or ``module.options.update({...})``): the modules that already
    exist get the new value too, and new ones copy it from ``wp.config``."""
    scope = syntax.scope_of(stmt)
    for loop in syntax.nodes_of_class(scope, (ast.For, ast.AsyncFor), skip=(*_DEF_TYPES, ast.ClassDef, ast.Lambda)):
        names = {n.id for n in syntax.nodes_of_class(loop.target, ast.Name)}
        for node in syntax.nodes_of_class(loop, (ast.Subscript, ast.Call), skip=(*_DEF_TYPES, ast.ClassDef, ast.Lambda)):
            if isinstance(node, ast.Subscript):
                # ``<loop variable>.options["<option>"] = ...``
                if (isinstance(node.ctx, ast.Store) and _is_options_of(node.value, names)
                        and isinstance(node.slice, ast.Constant) and node.slice.value == option):
                    return True
            elif (isinstance(node.func, ast.Attribute) and node.func.attr == "update"
                  and _is_options_of(node.func.value, names) and node.args
                  and isinstance(node.args[0], ast.Dict)
                  and any(isinstance(k, ast.Constant) and k.value == option for k in node.args[0].keys)):
                return True  # ``<loop variable>.options.update({"<option>": ...})``
    return False


def _is_options_of(node: ast.expr, names: set[str]) -> bool:
    """``<name>.options`` for one of ``names``."""
    return (isinstance(node, ast.Attribute) and node.attr == "options"
            and isinstance(node.value, ast.Name) and node.value.id in names)


def _sets_the_default(stmt: ast.stmt, option: str, ctx: FileContext) -> bool:
    value = None if isinstance(stmt, ast.AugAssign) else getattr(stmt, "value", None)
    return value is not None and _assigns_the_default(option, value, stmt.lineno, ctx)


def _assigns_the_default(option: str, value: ast.expr, line: int, ctx: FileContext) -> bool:
    """``value`` is the one Warp's config holds by default for ``option``, and no other
    assignment of the option in the linted program (this file's, or another's the facts
    saw) may set a different one: the default set late changes nothing then. An unknown
    value anywhere keeps the finding."""
    if not _is_default_node(option, value, ctx):
        return False
    for other_line, other in _file_assignments(ctx).get(option, ()):
        if other_line != line and (other is None or not _is_default_node(option, other, ctx)):
            return False
    program = ctx.program
    assignments = program.memo(f"{_RULE}:config-assignments", lambda: _config_assignments(program))
    for module, fact in (*assignments.get(option, ()), *assignments.get("*", ())):
        if module == ctx.module_name and fact.span[0] == line:
            continue  # this assignment
        if option not in fact.options or not _is_default_value(option, fact.options[option], program, module, fact.function):
            return False
    return True


def _is_default_node(option: str, node: ast.expr, ctx: FileContext) -> bool:
    if option == "deterministic":
        return ctx.warp_name(node) in _DEFAULT_DETERMINISTIC
    value = ctx.const_value(node, _NO_VALUE)
    default = _DEFAULTS[option]
    return type(value) is type(default) and value == default


def _is_default_value(option: str, value: Value, program: Program, module: str, function: str | None) -> bool:
    """The same question for a facts ``Value`` (another file's assignment)."""
    if option == "deterministic":
        return value.kind == "name" and value.data in _DEFAULT_DETERMINISTIC
    default = _DEFAULTS[option]
    resolved = program.resolve(module, function, value)
    return bool(resolved) and all(type(v) is type(default) and v == default for v in resolved)


def _config_assignments(program: Program) -> dict[str, list[tuple[str, OptionFact]]]:
    """Option name ("*": a name the facts could not read) -> (module, fact) of every
    ``wp.config`` assignment in the program."""
    found: dict[str, list[tuple[str, OptionFact]]] = {}
    for module, facts in program.modules.items():
        for fact in facts.options:
            if fact.kind == "config":
                for name in fact.options:
                    found.setdefault(name, []).append((module, fact))
    return found


def _file_assignments(ctx: FileContext) -> dict[str, list[tuple[int, ast.expr | None]]]:
    """This file's assignments of the deadline options, as the tree check reads them (a
    local alias of ``wp.config`` too): option ("*": by a computed name) -> (line, value;
    None for ``+=`` and the like)."""
    cache = ctx.state.setdefault(_RULE, {})
    if "assignments" in cache:
        return cache["assignments"]
    found: dict[str, list[tuple[int, ast.expr | None]]] = {}
    for node in syntax.nodes_of_class(ctx.tree, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Call)):
        if isinstance(node, ast.AnnAssign) and node.value is None:
            continue  # an annotation only: no assignment
        if isinstance(node, ast.Call):
            if (isinstance(node.func, ast.Name) and node.func.id == "setattr" and len(node.args) >= 3
                    and ctx.warp_name(node.args[0]) == "warp.config"):  # fmt: skip
                name = node.args[1]
                option = name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else "*"
                found.setdefault(option, []).append((node.lineno, node.args[2]))
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if (isinstance(target, ast.Attribute) and target.attr in DEADLINE_OPTIONS
                    and ctx.warp_name(target.value) == "warp.config"):  # fmt: skip
                value = None if isinstance(node, ast.AugAssign) else node.value
                found.setdefault(target.attr, []).append((node.lineno, value))
    if "*" in found:  # a computed name may be any of them: an unknown value for each
        for option in DEADLINE_OPTIONS:
            found.setdefault(option, []).append((0, None))
    cache["assignments"] = found
    return found


def _they(events: list[_Event]) -> str:
    return "its kernels" if len(events) == 1 else "those kernels"


def _module_statement(node: ast.AST) -> ast.stmt | None:
    current = node
    while current is not None and not isinstance(current.parent, ast.Module):
        current = current.parent
    return current


def _is_type_checking(test: ast.expr) -> bool:
    text = syntax.as_string(test)
    return text in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def _start_line(node: ast.stmt) -> int:
    """The line a statement starts on, its decorators included (``ast`` puts a decorated
    def's or class's ``lineno`` on the ``def``/``class`` line)."""
    decorators = getattr(node, "decorator_list", None)
    return decorators[0].lineno if decorators else node.lineno


def _events_in(body: list[ast.stmt], ctx: FileContext, top: ast.stmt | None):
    """Imports of kernel-defining project modules and Warp definitions in a body, in order.

    Follows compound statements (if/try/with/for/while, class bodies), not nested defs.
    """
    for stmt in body:
        here_top = top if top is not None else (stmt if isinstance(stmt.parent, ast.Module) else None)
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            module = _kernel_module_imported(stmt, ctx)
            if module is not None:
                yield _Event(stmt, stmt.lineno, f"`{module}` (imported on line {stmt.lineno})", here_top)
        elif isinstance(stmt, _DEF_TYPES):
            decorator = ctx.kernel_decorator(stmt, kinds=_WARP_DEFINITIONS)
            if decorator is not None and (decorator.kind == "kernel" or _own_module_gets_kernels(ctx)):
                line = _start_line(stmt)
                what = "the kernel" if decorator.kind == "kernel" else "the Warp function"
                yield _Event(stmt, line, f"{what} `{stmt.name}` (line {line})", here_top)
        elif isinstance(stmt, ast.ClassDef):
            if stmt.decorator_list and any(
                (ctx.warp_name(d.func if isinstance(d, ast.Call) else d) or "").endswith(".struct")
                for d in stmt.decorator_list
            ) and _own_module_gets_kernels(ctx):
                line = _start_line(stmt)
                yield _Event(stmt, line, f"the struct `{stmt.name}` (line {line})", here_top)
            yield from _events_in(stmt.body, ctx, here_top)
        elif isinstance(stmt, ast.If):
            if _is_type_checking(stmt.test):
                yield from _events_in(stmt.orelse, ctx, here_top)
                continue
            yield from _events_in(stmt.body, ctx, here_top)
            yield from _events_in(stmt.orelse, ctx, here_top)
        elif isinstance(stmt, _LOOP_TYPES):
            yield from _events_in(stmt.body, ctx, here_top)
            yield from _events_in(stmt.orelse, ctx, here_top)
        elif isinstance(stmt, _WITH_TYPES):
            yield from _events_in(stmt.body, ctx, here_top)
        elif isinstance(stmt, ast.Try):
            yield from _events_in(stmt.body, ctx, here_top)
            for handler in stmt.handlers:
                yield from _events_in(handler.body, ctx, here_top)
            yield from _events_in(stmt.orelse, ctx, here_top)
            yield from _events_in(stmt.finalbody, ctx, here_top)


def _own_module_gets_kernels(ctx: FileContext) -> bool:
    """A Warp function or struct of this file creates its Warp module with the options of
    that moment: a cost only where a kernel lands in that module (``Program.own_module_gets_kernels``)."""
    return ctx.program.own_module_gets_kernels(ctx.facts.module)


def _relative_import_base(stmt: ast.ImportFrom, ctx: FileContext) -> str | None:
    """The absolute module a relative ``from`` import names; None when it climbs past the
    top-level package (Python raises ImportError there).

    In a file outside any package (a script), ``from .helpers import x`` with ``helpers``
    next to the file is read as ``from helpers import x``, and ``from . import x`` as
    ``import x``: the sibling modules the author means.
    """
    modname, level, name = stmt.module or "", stmt.level, ctx.module_name
    if ctx.is_package:
        level -= 1
        package_name = name.rsplit(".", level)[0]
    elif _next_to_script(ctx.path, modname):
        level -= 1
        package_name = ""
    else:
        package_name = name.rsplit(".", level)[0]
    if level and name.count(".") < level:
        return None
    if package_name:
        return f"{package_name}.{modname}" if modname else package_name
    return modname


def _next_to_script(path: str, modname: str) -> bool:
    """``path`` is outside any package (no ``__init__.py`` beside it) and the first part of
    ``modname`` names an entry of its directory (any entry when ``modname`` is empty)."""
    directory = os.path.dirname(os.path.abspath(path))
    return not os.path.exists(directory + "/__init__.py") and os.path.exists(
        directory + "/" + modname.split(".")[0]
    )


def _imported_names(stmt: ast.Import | ast.ImportFrom, ctx: FileContext) -> list[str]:
    names: list[str] = []
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            parts = alias.name.split(".")
            names.extend(".".join(parts[: i + 1]) for i in range(len(parts)))
        return names
    base = _relative_import_base(stmt, ctx) if stmt.level else stmt.module
    if base is None and stmt.level:
        return names
    if base:
        parts = base.split(".")
        names.extend(".".join(parts[: i + 1]) for i in range(len(parts)))
    for alias in stmt.names:
        if alias.name != "*":
            names.append(f"{base}.{alias.name}" if base else alias.name)
    return names


def _kernel_module_imported(stmt: ast.Import | ast.ImportFrom, ctx: FileContext) -> str | None:
    """The first project module this import brings in that creates kernels, if any."""
    project = ctx.project
    for name in _imported_names(stmt, ctx):
        if name == ctx.module_name or name in ("warp", "warp.config") or name.startswith("warp._"):
            # ``import warp`` must come first to reach wp.config at all; even when the
            # linted project is Warp itself, its own modules are not the user's concern.
            continue
        summary = project.module(name)
        if summary is None or summary.module_name == ctx.module_name:
            continue
        if project.defines_kernels_transitively(summary):
            return name
    return None


def _statement_alone_on_lines(stmt: ast.stmt) -> bool:
    siblings = ast.iter_child_nodes(stmt.parent) if stmt.parent is not None else []
    for sibling in siblings:
        if sibling is stmt or not isinstance(sibling, ast.stmt):
            continue
        if sibling.lineno <= stmt.end_lineno and (sibling.end_lineno or sibling.lineno) >= stmt.lineno:
            return False
    return True


def _names_bound_before(value: ast.expr, line: int, ctx: FileContext) -> bool:
    """Every name in ``value`` is bound (by an import/assignment) above ``line``."""
    names = [value] if isinstance(value, ast.Name) else list(syntax.nodes_of_class(value, ast.Name))
    for name in names:
        if not isinstance(name.ctx, ast.Load):
            continue  # a walrus or comprehension target binds the name: nothing to have bound
        _scope, bindings = syntax.lookup(name)
        if not bindings:
            if _predefined_global(name.id, ctx):
                continue  # bound before any line of the file
            return False
        if any(_binding_line(b) >= line for b in bindings):
            return False
    return True


def _predefined_global(name: str, ctx: FileContext) -> bool:
    """A name a module can read without binding it: a builtin or a module global Python sets.
    ``__dict__`` is an attribute of the builtins module, not a name."""
    if name in _MODULE_ATTRS or (name == "__path__" and ctx.is_package):
        return True
    return name != "__dict__" and hasattr(builtins, name)


def _binding_line(binding: ast.AST) -> int:
    return getattr(binding, "lineno", 0) or 0


def _move_fix(stmt: ast.stmt, first: _Event, ctx: FileContext):
    """Move a module-level assignment to just before the first offending statement."""
    if not isinstance(stmt.parent, ast.Module) or first.top is None:
        return None
    if not isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        return None
    if not _statement_alone_on_lines(stmt):
        return None
    insert_line = _start_line(first.top)
    # The target's root (``wp``) and the value's names must exist at the new place.
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    for target in targets:
        base = target
        while isinstance(base, ast.Attribute):
            base = base.value
        if not isinstance(base, ast.Name) or not _names_bound_before(base, insert_line, ctx):
            return None
    if stmt.value is not None and not _names_bound_before(stmt.value, insert_line, ctx):
        return None
    first_line0, last_line0 = stmt.lineno - 1, stmt.end_lineno - 1
    lines = [ctx.index.line_text(i) for i in range(first_line0, last_line0 + 1)]
    moved = "".join(lines)
    if not moved.endswith("\n"):
        moved += "\n"
    return ctx.fix(
        f"Move the assignment above line {insert_line}",
        ctx.insert_at(insert_line - 1, 0, moved),
        ctx.delete_lines(first_line0, last_line0),
        safe=False,
    )


def _in_teardown(stmt: ast.stmt) -> bool:
    """In a test's teardown (``tearDown``, ``teardown_method``...): it puts back what the
    setup saved, after the test; no kernel is meant to see it."""
    function = next(iter(syntax.enclosing_functions(stmt)), None)
    return function is not None and function.name in TEARDOWN_NAMES
