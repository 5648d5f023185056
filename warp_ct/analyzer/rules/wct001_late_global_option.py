"""WCT001 late-global-option."""

from __future__ import annotations

from dataclasses import dataclass

from astroid import nodes
from astroid.exceptions import AstroidError

from warp_ct.analyzer.astroid_context import FileContext, enclosing_functions
from warp_ct.analyzer.model import Applicability, Severity
from warp_ct.analyzer.rules.base import Rule

# Copied from wp.config when a module object is created (its first kernel/function/struct,
# i.e. at import). Options read at hash time (mode, optimization_level, ...) are not here.
DEADLINE_OPTIONS = frozenset(
    {"enable_backward", "max_unroll", "lineinfo", "compile_time_trace", "deterministic", "deterministic_max_records"}
)
_WARP_DEFINITIONS = ("kernel", "func", "struct", "func_native", "func_grad", "func_replay")


@dataclass(frozen=True)
class _Event:
    """Something that created Warp modules before the assignment ran."""

    node: nodes.NodeNG  # the import statement or the decorated def
    line: int  # 1-based line where it starts (decorators included)
    what: str  # for the message
    top: nodes.NodeNG  # the module-level statement that holds it (for the fix), or None


class LateGlobalOption(Rule):
    code = "WCT001"
    name = "late-global-option"
    severity = Severity.WARNING
    summary = "A `wp.config` option that modules copy when they are created is set after kernels already exist"
    fix_applicability = Applicability.UNSAFE
    triggers = (r"\b(?:enable_backward|max_unroll|lineinfo|compile_time_trace|deterministic(?:_max_records)?)\s*=[^=]",)
    docs = '''
    ## What it does
    Flags an assignment to `wp.config.enable_backward`, `max_unroll`, `lineinfo`,
    `compile_time_trace`, `deterministic` or `deterministic_max_records` that runs after
    kernels were already defined: after importing a module of your project that defines
    kernels (directly or through its own imports), or after a `@wp.kernel` earlier in the
    same file.

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
    Importing a third-party library that defines kernels is not reported (warp-ct cannot
    see its files); the same deadline applies to it. The automatic fix moves the
    assignment above the first import or kernel that comes before it; it is unsafe
    because the import it jumps over might have been meant to run first (for example,
    one that configures Warp itself).
    '''

    # ------------------------------------------------------------------ check
    def visit_assign(self, node: nodes.Assign, ctx: FileContext) -> None:
        for target in node.targets:
            self._check_target(node, target, ctx)

    def visit_augassign(self, node: nodes.AugAssign, ctx: FileContext) -> None:
        self._check_target(node, node.target, ctx)

    def visit_annassign(self, node: nodes.AnnAssign, ctx: FileContext) -> None:
        if node.value is not None:
            self._check_target(node, node.target, ctx)

    def _check_target(self, stmt: nodes.NodeNG, target: nodes.NodeNG, ctx: FileContext) -> None:
        if not isinstance(target, nodes.AssignAttr):
            return
        option = target.attrname
        if option not in DEADLINE_OPTIONS:
            return
        owner = ctx.warp_name(target.expr)
        if owner != "warp.config":
            return
        if _saves_old_value(stmt, option, ctx):
            return  # a temporary change, restored later: it targets modules created meanwhile
        events = self._events_before(stmt, ctx)
        if not events:
            return
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
    def _events_before(self, stmt: nodes.NodeNG, ctx: FileContext) -> list[_Event]:
        """Kernel-creating events that certainly ran before ``stmt`` (earliest first)."""
        cache = ctx.state.setdefault(self.code, {})
        if "module_events" not in cache:
            cache["module_events"] = list(_events_in(ctx.tree.body, ctx, top=None))
        module_events: list[_Event] = cache["module_events"]
        enclosing = enclosing_functions(stmt)
        if not enclosing:
            return [e for e in module_events if e.line < stmt.fromlineno]
        outermost = enclosing[-1]
        top = _module_statement(outermost)
        # A function can only run after its own definition: everything at module level
        # above it has happened. Inside the function, what comes before the assignment too.
        limit = top.fromlineno if top is not None else outermost.fromlineno
        found = [e for e in module_events if e.line < limit]
        for func in reversed(enclosing):
            found.extend(e for e in _events_in(func.body, ctx, top=None) if e.line < stmt.fromlineno)
        return sorted(found, key=lambda e: e.line)


def _saves_old_value(stmt: nodes.NodeNG, option: str, ctx: FileContext) -> bool:
    """The same flow reads ``wp.config.<option>`` (``old = wp.config.x`` ... restore)."""
    scope = stmt.scope()
    # In a method, the save may sit in a sibling method (setUpClass ... tearDownClass).
    klass = next((a for a in stmt.node_ancestors() if isinstance(a, nodes.ClassDef)), None)
    region = klass if klass is not None else scope
    for attr in region.nodes_of_class(nodes.Attribute):
        if attr.attrname != option:
            continue
        if klass is None and attr.scope() is not scope:
            continue
        if ctx.warp_name(attr.expr) == "warp.config":
            return True
    return False


def _they(events: list[_Event]) -> str:
    return "its kernels" if len(events) == 1 else "those kernels"


def _module_statement(node: nodes.NodeNG) -> nodes.NodeNG | None:
    current = node
    while current is not None and not isinstance(current.parent, nodes.Module):
        current = current.parent
    return current


def _is_type_checking(test: nodes.NodeNG) -> bool:
    text = test.as_string()
    return text in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def _events_in(body: list[nodes.NodeNG], ctx: FileContext, top: nodes.NodeNG | None):
    """Imports of kernel-defining project modules and Warp definitions in a body, in order.

    Follows compound statements (if/try/with/for/while, class bodies), not nested defs.
    """
    for stmt in body:
        here_top = top if top is not None else (stmt if isinstance(stmt.parent, nodes.Module) else None)
        if isinstance(stmt, (nodes.Import, nodes.ImportFrom)):
            module = _kernel_module_imported(stmt, ctx)
            if module is not None:
                yield _Event(stmt, stmt.fromlineno, f"`{module}` (imported on line {stmt.fromlineno})", here_top)
        elif isinstance(stmt, nodes.FunctionDef):
            if ctx.kernel_decorator(stmt, kinds=_WARP_DEFINITIONS) is not None:
                line = stmt.decorators.fromlineno if stmt.decorators else stmt.fromlineno
                yield _Event(stmt, line, f"the kernel `{stmt.name}` (line {line})", here_top)
        elif isinstance(stmt, nodes.ClassDef):
            if stmt.decorators and any(
                (ctx.warp_name(d.func if isinstance(d, nodes.Call) else d) or "").endswith(".struct")
                for d in stmt.decorators.nodes
            ):
                line = stmt.decorators.fromlineno
                yield _Event(stmt, line, f"the struct `{stmt.name}` (line {line})", here_top)
            yield from _events_in(stmt.body, ctx, here_top)
        elif isinstance(stmt, nodes.If):
            if _is_type_checking(stmt.test):
                yield from _events_in(stmt.orelse, ctx, here_top)
                continue
            yield from _events_in(stmt.body, ctx, here_top)
            yield from _events_in(stmt.orelse, ctx, here_top)
        elif isinstance(stmt, (nodes.For, nodes.While)):
            yield from _events_in(stmt.body, ctx, here_top)
            yield from _events_in(stmt.orelse, ctx, here_top)
        elif isinstance(stmt, nodes.With):
            yield from _events_in(stmt.body, ctx, here_top)
        elif isinstance(stmt, nodes.Try):
            yield from _events_in(stmt.body, ctx, here_top)
            for handler in stmt.handlers:
                yield from _events_in(handler.body, ctx, here_top)
            yield from _events_in(stmt.orelse, ctx, here_top)
            yield from _events_in(stmt.finalbody, ctx, here_top)


def _imported_names(stmt: nodes.Import | nodes.ImportFrom) -> list[str]:
    names: list[str] = []
    if isinstance(stmt, nodes.Import):
        for modname, _alias in stmt.names:
            parts = modname.split(".")
            names.extend(".".join(parts[: i + 1]) for i in range(len(parts)))
        return names
    try:
        base = stmt.root().relative_to_absolute_name(stmt.modname or "", stmt.level) if stmt.level else stmt.modname
    except AstroidError:
        return names
    if base:
        parts = base.split(".")
        names.extend(".".join(parts[: i + 1]) for i in range(len(parts)))
    for original, _alias in stmt.names:
        if original != "*":
            names.append(f"{base}.{original}" if base else original)
    return names


def _kernel_module_imported(stmt: nodes.Import | nodes.ImportFrom, ctx: FileContext) -> str | None:
    """The first project module this import brings in that creates kernels, if any."""
    project = ctx.project
    for name in _imported_names(stmt):
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


def _statement_alone_on_lines(stmt: nodes.NodeNG) -> bool:
    siblings = stmt.parent.get_children() if stmt.parent is not None else []
    for sibling in siblings:
        if sibling is stmt or not sibling.is_statement:
            continue
        if sibling.fromlineno <= stmt.tolineno and (sibling.tolineno or sibling.fromlineno) >= stmt.fromlineno:
            return False
    return True


def _names_bound_before(value: nodes.NodeNG, line: int) -> bool:
    """Every name in ``value`` is bound (by an import/assignment) above ``line``."""
    for name in [value] if isinstance(value, nodes.Name) else list(value.nodes_of_class(nodes.Name)):
        try:
            _scope, bindings = name.lookup(name.name)
        except AstroidError:
            return False
        if not bindings:
            return False
        if any((b.fromlineno or 0) >= line for b in bindings):
            return False
    return True


def _move_fix(stmt: nodes.NodeNG, first: _Event, ctx: FileContext):
    """Move a module-level assignment to just before the first offending statement."""
    if not isinstance(stmt.parent, nodes.Module) or first.top is None:
        return None
    if not isinstance(stmt, (nodes.Assign, nodes.AugAssign, nodes.AnnAssign)) or isinstance(stmt, nodes.AugAssign):
        return None
    if not _statement_alone_on_lines(stmt):
        return None
    insert_line = first.top.fromlineno
    if isinstance(first.top, (nodes.FunctionDef, nodes.ClassDef)) and first.top.decorators:
        insert_line = first.top.decorators.fromlineno
    # The target's root (``wp``) and the value's names must exist at the new place.
    targets = stmt.targets if isinstance(stmt, nodes.Assign) else [stmt.target]
    for target in targets:
        base = target
        while isinstance(base, (nodes.AssignAttr, nodes.Attribute)):
            base = base.expr
        if not isinstance(base, nodes.Name) or not _names_bound_before(base, insert_line):
            return None
    if stmt.value is not None and not _names_bound_before(stmt.value, insert_line):
        return None
    first_line0, last_line0 = stmt.fromlineno - 1, stmt.tolineno - 1
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

