"""WCT006 options-after-load."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Iterator

from warp_ct.analyzer import syntax, textscan
from warp_ct.analyzer.context import FileContext
from warp_ct.analyzer.flows import (
    callee_label,
    describe,
    flow_index,
    is_warp_code,
    load_calls,
    loaded_before,
    loads_in,
    module_ref,
    precedes,
    what_loaded,
)
from warp_ct.analyzer.facts import FileFacts, LaunchFact, exclusive
from warp_ct.analyzer.model import Severity
from warp_ct.analyzer.program import Event, FunctionRef, LoadHistory, Program
from warp_ct.analyzer.query import QueryContext, where
from warp_ct.analyzer.rules.base import Rule

if TYPE_CHECKING:
    from warp_ct.analyzer.project import FileSummary, Project

# The text of an option change: ``set_module_options`` or ``<module>.options`` (update,
# setdefault, item assignment).
_CHANGE_TEXT = r"set_module_options|\.options\b"
_CHANGE_RE = re.compile(_CHANGE_TEXT)
_CHANGE_WORDS = ("set_module_options", ".options")


class OptionsAfterLoad(Rule):
    code = "WCT006"
    name = "options-after-load"
    severity = Severity.WARNING
    summary = "Module options changed after the module was launched or loaded: it is hashed again and rebuilt"
    fix_applicability = None
    docs = '''
    ## What it does
    Flags `wp.set_module_options(...)`, `wp.get_module(name).options.update(...)` and
    `wp.get_module(name).options[key] = ...` when, earlier in the same function (or the
    same module body), a kernel of that module was launched (`wp.launch`,
    `wp.launch_tiled`, `wp.get_suggested_block_size`) or the module was loaded
    (`wp.force_load`, `wp.load_module`). The launch and the change may sit in helpers, in
    other files, reached from one flow (a pipeline's `step()`, then a `tune()` helper), and
    a change behind a guard inside a loop counts after the launches of the passes before
    it (`if step == warmup: use_fast_math()` ahead of `pipeline.step()`); a guard that holds
    on the first pass only (`if step == 0:`) does not.

    ## Why it costs compile time
    A module's options are part of its hash. Changing them after the module was built
    gives it a new hash, so the next launch generates and compiles the whole module
    again: two builds where one would do.

    ## Example
    ```python
    import warp as wp

    @wp.kernel
    def step(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = x[i] + 1.0

    def run(x):
        wp.launch(step, dim=x.shape, inputs=[x])
        wp.set_module_options({"enable_backward": False})  # WCT006
        wp.launch(step, dim=x.shape, inputs=[x])
    ```

    ## Use instead
    ```python
    import warp as wp

    wp.set_module_options({"enable_backward": False})

    @wp.kernel
    def step(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = x[i] + 1.0

    def run(x):
        wp.launch(step, dim=x.shape, inputs=[x])
        wp.launch(step, dim=x.shape, inputs=[x])
    ```

    ## When not to apply
    Changing the options of a different module is fine, and so is a change that only
    runs on some branch after a launch that is itself conditional:
    ```python
    import warp as wp

    @wp.kernel
    def step(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = x[i] + 1.0

    def run(x, warm_up):
        if warm_up:
            wp.launch(step, dim=x.shape, inputs=[x])
        wp.get_module("sim.other").options.update({"enable_backward": False})
    ```
    A sweep that deliberately builds one variant per setting (benchmarks, tests of the
    options themselves) is the exception: suppress with `# noqa: WCT006`.
    '''

    # The facts see every option change and load the file's own imports name: the query
    # judges those flows, in the function and through helpers across files. Only a file whose
    # facts see no option change at all (a re-exported ``set_module_options``) is left to
    # the tree check, in its own functions.
    def query(self, ctx: QueryContext) -> None:
        program = ctx.program
        for ref, events in _flows_of(program, ctx.facts):
            function = program.function(ref)
            if function is not None and function.is_kernel:
                continue  # Warp code: its body is compiled, not run
            reported: set[int] = set()
            for load, change, modules in _changes_after_loads(events):
                if load.via or change.via:
                    self._report_through_calls(ctx, load, change, modules)
                    reported.add(id(change))
            for event in events:
                if (event.kind == "options" and not event.via and event.detail.kind == "module_options"
                        and id(event) not in reported):  # fmt: skip
                    self._report_in_the_flow(ctx, events, event)
            for change, load in _changes_on_a_later_pass(program, ref, events):
                self._report_on_a_later_pass(ctx, change, load)

    def _report_on_a_later_pass(self, ctx: QueryContext, change: Event, load: Event) -> None:
        site, helper, loaded = _phrases(ctx, load, change, frozenset(change.warp_modules & load.warp_modules))
        ctx.report(
            site,
            f"{helper} on a later pass of this loop, after {loaded} on the passes before: the module gets a new "
            "hash and is built again at its next launch. Set the options before the loop.",
        )

    def _report_through_calls(self, ctx: QueryContext, load: Event, change: Event, modules: frozenset[str]) -> None:
        site, helper, loaded = _phrases(ctx, load, change, modules)
        ctx.report(
            site,
            f"{helper} after {loaded}: the module gets a new hash and is built again at its next launch. "
            "Set the options before the first launch (at import, beside the kernels).",
        )

    def _report_in_the_flow(self, ctx: QueryContext, events: tuple[Event, ...], change: Event) -> None:
        """A change after a load of the same function: the first launch (or load) before it
        that runs whenever the change does (not behind an ``if`` or in an ``except``), unless
        the change puts saved options back."""
        option = change.detail
        if option.restores:
            return
        first: tuple[int, LaunchFact, str] | None = None
        for event in events:
            if event is change:
                break
            if event.kind != "load" or event.via or event.exclusive_with(change):
                continue
            launch = ctx.facts.launches[event.detail[1]]
            shared = sorted(event.warp_modules & change.warp_modules)
            if not launch.guarded and shared:
                first = (launch.order, launch, ctx.module_name if ctx.module_name in shared else shared[0])
                break
        # ``wp.force_load()`` loads every module (this file's only if it had Warp code by then).
        for launch in ctx.facts.launches:
            if (launch.kind != "force_load" or launch.target is not None or launch.function != option.function
                    or launch.order > option.order or launch.guarded or exclusive(launch.path, option.path)):  # fmt: skip
                continue
            if first is not None and first[0] < launch.order:
                break
            modules = sorted(m for m in change.warp_modules if m != ctx.module_name or _warp_code_before(ctx.facts, launch))
            if modules:
                first = (launch.order, launch, ctx.module_name if ctx.module_name in modules else modules[0])
            break
        if first is None:
            return
        _order, launch, module = first
        kernel = ctx.source_of(launch.kernel_span) if launch.kernel_span is not None else None
        ctx.report(
            change.span,
            f"The options of {describe(ctx, module)} change after {what_loaded(launch.kind, kernel, launch.span[0])}: "
            "the module gets a new hash and is built again at its next launch. Set the options before the first launch.",
        )

    def needs_tree(self, summary: "FileSummary", project: "Project") -> bool:
        if _changed_after_a_load(project.facts(summary)) is not None:
            return False  # the query judges every change the facts see
        # None in the facts: the tree check reads the same calls, so only a name the facts
        # cannot resolve (a re-exported ``set_module_options`` or ``get_module``) can add
        # one; then, in the text, some load call starts before the last change does.
        text = summary.text
        if not any(word in text for word in _CHANGE_WORDS):
            return False
        if "set_module_options" not in text and "get_module" not in text:
            return False  # ``.options`` alone: the check reads changes through ``get_module(...)``
        if not project.facts_may_miss_warp_names(summary):
            return False
        loads = load_calls(text)
        if not loads:
            return False
        last_change = max((m.start() for m in textscan.finditer_at(_CHANGE_RE, _CHANGE_WORDS, text)), default=-1)
        return loads[0][0] < last_change

    def visit_module(self, node: ast.Module, ctx: FileContext) -> None:
        if _changed_after_a_load(ctx.facts) is not None:
            return  # the query's
        for owner, items in flow_index(ctx).flows:
            changes = list(_option_changes(ctx, items))  # cheap, and most flows have none
            if not changes:
                continue
            if isinstance(owner, syntax.FUNCTION_TYPES) and is_warp_code(owner, ctx):
                continue
            loads = loads_in(ctx, owner, items)
            if not loads:
                continue
            saves = [n for n in items if type(n) is ast.Call and ctx.call_name(n) == "warp.get_module_options"]
            for change, module in changes:
                if _in_finally(change, owner) or any(precedes(s, change) for s in saves):
                    continue  # save ... restore: putting the old options back, not churn
                load = loaded_before(ctx, loads, module, change)
                if load is None:
                    continue
                ctx.report(
                    change,
                    f"The options of {describe(ctx, module)} change after {load.what}: the module gets a new "
                    "hash and is built again at its next launch. Set the options before the first launch.",
                )


def _warp_code_before(facts: FileFacts, launch: LaunchFact) -> bool:
    """Some Warp code of the file's own module is defined above ``launch`` (outside functions)."""
    return any(k.function is None and k.module is None and k.span[0] < launch.span[0] for k in facts.kernels)


def _changed_after_a_load(facts: FileFacts) -> set[str | None] | None:
    """The functions (None: the module body) with a module-option change after one of their
    own launches or loads; None when the facts see no option change at all (a re-exported
    ``set_module_options``, say: only the tree can tell)."""
    changes = [o for o in facts.options if o.kind == "module_options"]
    if not changes:
        return None
    first_load: dict[str | None, int] = {}
    for launch in facts.launches:
        first_load[launch.function] = min(launch.order, first_load.get(launch.function, launch.order))
    return {o.function for o in changes if o.function in first_load and o.order > first_load[o.function]}


def _launched(program: Program, load: Event) -> str:
    """"`square`" for a launch of a named kernel, else "its kernels"."""
    kind, index = load.detail
    launch = program.modules[load.site_module].launches[index]
    if launch.kernel.kind in ("name", "local") and isinstance(launch.kernel.data, str):
        return f"`{launch.kernel.data.rsplit('.', 1)[-1]}`"
    return "a kernel" if kind.startswith("launch") else "the module"


def _flows_of(program: Program, facts: FileFacts) -> Iterator[tuple[FunctionRef, tuple[Event, ...]]]:
    """This file's flows that can run a module-option change (the others cannot report)."""
    reaching = program.memo("WCT006.reaching", lambda: program.reaching(_changers(program)))
    for qualname in ("<module>", *facts.functions):
        ref = FunctionRef(facts.module, qualname)
        if ref in reaching:
            yield ref, program.effects(ref, shallow=True)


def _changers(program: Program) -> list[FunctionRef]:
    return [
        FunctionRef(module, option.function or "<module>")
        for module, facts in program.modules.items()
        for option in facts.options
        if option.kind == "module_options"
    ]


def _changes_after_loads(events: tuple[Event, ...]) -> Iterator[tuple[Event, Event, frozenset[str]]]:
    """(first load, change, modules) where a change of module options follows a load of
    the same module in one flow, reported once per change site. Pairs that both come
    through the same call are the callee's to report."""
    history = LoadHistory()
    seen_sites: set[tuple] = set()
    for event in events:
        if event.kind == "load":
            history.add(event)
        elif event.kind == "options":
            option = event.detail
            if option.kind != "module_options":
                continue
            load = history.before(event)
            if load is None:
                continue
            site = event.via[0] if event.via else (event.site_module, event.span)
            if site in seen_sites:
                continue
            seen_sites.add(site)
            yield load, event, frozenset(m for m in event.warp_modules if history.loaded(m))


def _phrases(ctx: QueryContext, load: Event, change: Event, modules: frozenset[str]) -> tuple[tuple, str, str]:
    """Where to report a change (the flow's own line that runs it), what changes which
    options, and what loaded the module, for the messages."""
    site = change.via[0][1] if change.via else change.span
    target = _describe(modules, ctx.module_name)
    if change.via:
        helper = (f"`{change.via[0][2]}()` ({where(change.site_module, change.span, ctx.module_name)}) "
                  f"changes the options of {target}")  # fmt: skip
    else:
        helper = f"The options of {target} change"
    what = _launched(ctx.program, load)
    if load.via:
        loaded = f"`{load.via[0][2]}()` launched {what} ({where(load.via[0][0], load.via[0][1], ctx.module_name)})"
    else:
        loaded = f"{what} was launched on line {load.span[0]}"
    return site, helper, loaded


def _changes_on_a_later_pass(program: Program, ref: FunctionRef, events: tuple[Event, ...]) -> Iterator[tuple[Event, Event]]:
    """(change, load) where a guarded option change in a loop of the flow's own code comes
    before a launch of the same module in that loop: on the pass where the guard holds
    (``if step == warmup: tune()``), the passes before it have launched the module. A change
    no load precedes in the flow only (the others are reported above), and not behind a
    first-pass test (``if i == 0:``)."""
    facts = program.modules[ref.module]
    function = program.function(ref)
    loops = function.loops if function is not None else facts.module_loops if ref.qualname == "<module>" else ()
    if not loops:
        return
    loaded: set[str] = set()
    for position, change in enumerate(events):
        if change.kind == "load":
            loaded.update(change.warp_modules)
            continue
        if change.kind != "options" or change.detail.kind != "module_options" or change.detail.restores:
            continue
        if not change.path or change.warp_modules & loaded:
            continue  # unguarded: set on the first pass, before its launches; or loaded before (above)
        if any(arm == 0 and branch in facts.first_pass_branches for branch, arm in change.path):
            continue
        line = _line_in_flow(change)
        loop = min((span for span in loops if span[0] <= line <= span[1]), key=lambda s: s[1] - s[0], default=None)
        if loop is None:
            continue
        for later in events[position + 1:]:
            if (later.kind == "load" and later.warp_modules & change.warp_modules
                    and loop[0] <= _line_in_flow(later) <= loop[1] and not later.exclusive_with(change)):  # fmt: skip
                yield change, later
                break


def _line_in_flow(event: Event) -> int:
    """The line of the flow's own code that runs the event (its call, for a callee's)."""
    return event.via[0][1][0] if event.via else event.span[0]


def _describe(modules: frozenset[str], current: str) -> str:
    names = sorted(modules)
    if names == [current]:
        return "this file's Warp module"
    return ", ".join(f"module `{n}`" for n in names)


def _in_finally(node: ast.AST, owner: ast.AST) -> bool:
    child, current = node, node.parent
    while current is not None and current is not owner:
        if isinstance(current, ast.Try) and any(s is child for s in current.finalbody):
            return True
        child, current = current, current.parent
    return False


def _option_changes(ctx: FileContext, items: list[ast.AST]) -> Iterator[tuple[ast.AST, str]]:
    """(node, module) for the option changes among a flow's ``flow_index`` nodes."""
    for node in items:
        if isinstance(node, ast.Call):
            if callee_label(node) not in ("set_module_options", "update", "__setitem__", "setdefault"):
                continue
            name = ctx.call_name(node)
            if name == "warp.set_module_options":
                module = module_ref(ctx, ctx.keyword(node, "module", 1))
                if module is not None:
                    yield node, module
                continue
            # wp.get_module(X).options.update(...)
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in ("update", "__setitem__", "setdefault"):
                module = _options_owner(ctx, func.value)
                if module is not None:
                    yield node, module
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript):
                    module = _options_owner(ctx, target.value)
                    if module is not None:
                        yield node, module


def _options_owner(ctx: FileContext, expr: ast.AST) -> str | None:
    """``wp.get_module(X).options`` -> X's module name."""
    if not (isinstance(expr, ast.Attribute) and expr.attr == "options"):
        return None
    getter = expr.value
    if isinstance(getter, ast.Call) and ctx.call_name(getter) == "warp.get_module":
        return module_ref(ctx, getter)
    return None
