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
)
from warp_ct.analyzer.facts import FileFacts
from warp_ct.analyzer.model import Severity
from warp_ct.analyzer.program import Event, FunctionRef, LoadHistory, Program
from warp_ct.analyzer.query import where
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
    (`wp.force_load`, `wp.load_module`).

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

    def needs_tree(self, summary: "FileSummary", project: "Project") -> bool:
        facts = project.facts(summary)
        program = project.program()
        for _ref, events in _flows_of(program, facts):
            for load, change, _modules in _changes_after_loads(events):
                if load.via or change.via:
                    return True
        # A finding is a change after a load of the same flow.
        changes = [o for o in facts.options if o.kind == "module_options"]
        if changes:
            first_load: dict[str | None, int] = {}
            for launch in facts.launches:
                first_load[launch.function] = min(launch.order, first_load.get(launch.function, launch.order))
            return any(o.function in first_load and o.order > first_load[o.function] for o in changes)
        # None in the facts (a re-exported ``set_module_options``?): in the text, some load
        # call starts before the last change does.
        text = summary.text
        if not any(word in text for word in _CHANGE_WORDS):
            return False
        loads = load_calls(text)
        if not loads:
            return False
        last_change = max((m.start() for m in textscan.finditer_at(_CHANGE_RE, _CHANGE_WORDS, text)), default=-1)
        return loads[0][0] < last_change

    def visit_module(self, node: ast.Module, ctx: FileContext) -> None:
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


    def leave_module(self, node: ast.Module, ctx: FileContext) -> None:
        """Flows through helpers, across files: an option change inside a called helper
        after a launch here, or a launch inside a called helper before a change here."""
        for ref, events in _flows_of(ctx.program, ctx.facts):
            for load, change, modules in _changes_after_loads(events):
                if not load.via and not change.via:
                    continue  # both in this function: visit_module above judges it, with the tree
                site = change.via[0][1] if change.via else change.span
                target = _describe(modules, ctx)
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
                ctx.report(
                    ctx._range(*site),
                    f"{helper} after {loaded}: the module gets a new hash and is built again at its next launch. "
                    "Set the options before the first launch (at import, beside the kernels).",
                )


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


def _describe(modules: frozenset[str], ctx: FileContext) -> str:
    names = sorted(modules)
    if names == [ctx.module_name]:
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
