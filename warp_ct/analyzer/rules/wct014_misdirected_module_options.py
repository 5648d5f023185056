"""WCT014 misdirected-module-options."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from warp_ct.analyzer import syntax, textscan
from warp_ct.analyzer.context import FileContext
from warp_ct.analyzer.model import Applicability, Severity
from warp_ct.analyzer.rules.base import Rule
from warp_ct.analyzer.rules.wct013_unique_ignores_module_options import bare_module_option_calls

if TYPE_CHECKING:
    from warp_ct.analyzer.program import Program
    from warp_ct.analyzer.project import FileSummary, Project

# ``import warp as wp`` / ``import warp`` on a line of its own at module level: the alias.
_WARP_ALIAS_RE = re.compile(r"^import[ \t]+warp(?:[ \t]+as[ \t]+(\w+))?[ \t]*(?:#.*)?$", re.MULTILINE)

# Warp APIs that create Warp code owned by the calling file's module.
_DEFINERS = {
    "kernel", "func", "struct", "func_native", "func_grad", "func_replay", "overload", "Kernel", "Function",
    "grad", "constant_function",
}  # fmt: skip


class MisdirectedModuleOptions(Rule):
    code = "WCT014"
    name = "misdirected-module-options"
    severity = Severity.WARNING
    summary = "A bare `wp.set_module_options` in a file without kernels configures an empty module"
    fix_applicability = Applicability.UNSAFE
    triggers = (r"set_module_options",)
    docs = '''
    ## What it does
    Flags `wp.set_module_options(...)` without `module=` in a Python file that defines no
    Warp kernels, functions or structs of its own — typically a package `__init__.py`, a
    configuration helper or a `main.py` that imports the kernels from elsewhere.

    ## Why it costs compile time
    Without `module=`, `wp.set_module_options` configures the Warp module of the file
    that calls it. Warp modules are per Python file, so options set in a file without
    kernels land on an empty module; the modules that really hold the kernels keep
    their defaults — for example they still generate and compile backward code after
    `{"enable_backward": False}` was meant to turn it off.

    ## Example
    ```python
    # file: sim/__init__.py
    import warp as wp

    wp.set_module_options({"enable_backward": False})  # WCT014

    from . import kernels  # noqa: E402
    # file: sim/kernels.py
    import warp as wp

    @wp.kernel
    def integrate(x: wp.array(dtype=float), v: wp.array(dtype=float), dt: float):
        i = wp.tid()
        x[i] = x[i] + v[i] * dt
    ```

    ## Use instead
    Set the options in the file that defines the kernels, or name the module that owns
    them (before it is first loaded):
    ```python
    # file: sim/__init__.py
    import warp as wp

    wp.set_module_options({"enable_backward": False}, module="sim.kernels")

    from . import kernels  # noqa: E402
    # file: sim/kernels.py
    import warp as wp

    wp.set_module_options({"enable_backward": False})

    @wp.kernel
    def integrate(x: wp.array(dtype=float), v: wp.array(dtype=float), dt: float):
        i = wp.tid()
        x[i] = x[i] + v[i] * dt
    ```
    `wp.get_module("sim.kernels").options.update({...})` works the same way. To change
    an option for every module, set `wp.config.<option>` in the entry point before any
    kernel module is imported.

    ## When not to apply
    Nothing is reported where every kernel module the call may be meant for (those the
    file imports or launches; a package's own for its `__init__.py`, or for a file related
    to none) already sets the same options itself: the call is redundant, and nothing is
    built that it meant to prevent.

    A file that creates its kernels itself, even inside a factory function, owns them,
    and its bare `set_module_options` is right:
    ```python
    import warp as wp

    wp.set_module_options({"enable_backward": False})

    def make_scale(s: float):
        @wp.kernel
        def scale(a: wp.array(dtype=float)):
            i = wp.tid()
            a[i] = a[i] * s

        return scale
    ```
    '''

    def needs_tree(self, summary: "FileSummary", project: "Project") -> bool:
        facts = project.facts(summary)
        if (any(k.function is None for k in facts.kernels) or any(function is None for _n, function, _o, _l in facts.structs)
                or any(f.parent is None and d.startswith("warp.fem.") for f in facts.functions.values() for d in f.decorators)):
            # Warp code outside any function (a kernel, function or struct, a ``@fem.integrand``):
            # the file defines Warp code and the check is silent. (Inside a function a parameter
            # may shadow ``wp``; the tree check tells.)
            return False
        if not any(o.kind == "module_options" for o in facts.options):
            return False  # no ``wp.set_module_options`` here
        return not _surely_defines_warp_code(summary.text)

    def leave_module(self, node: ast.Module, ctx: FileContext) -> None:
        calls = bare_module_option_calls(ctx)
        if not calls or _defines_warp_code(node, ctx):
            return
        summary = ctx.project.files.get(ctx.path)
        owners = []
        if summary is not None:
            defining = _kernel_modules(ctx.program)
            owners = [s for s in ctx.project.imported_project_modules(summary) if s.module_name in defining]
            meant = _modules_meant(ctx, summary)
            if meant and all(_sets_the_same(ctx, module, ctx.facts, call) for module in meant for call in calls):
                # Every kernel module the file imports, launches or holds (as a package) sets
                # these options itself (Kamino's files each turn backward off): the call is
                # redundant: no module builds anything it meant to prevent.
                return
        for call in calls:
            message = (
                "this file defines no Warp kernels, functions or structs, so `wp.set_module_options(...)` without "
                "`module=` configures an empty module; the modules that hold the kernels never see these options"
            )
            fixes = []
            if len(owners) == 1:
                owner = owners[0].module_name
                message += f"; target the module that owns them, e.g. `module=\"{owner}\"`, before its first load"
                fixes = _target_fix(call, owner, ctx)
            else:
                message += (
                    "; target the module that owns them by name "
                    "(`wp.set_module_options(opts, module=\"pkg.kernels\")`) before its first load"
                )
            ctx.report(call, message, fixes=fixes)


def _modules_meant(ctx: FileContext, summary: "FileSummary") -> list["FileSummary"]:
    """The kernel modules a bare ``set_module_options`` of this file may be meant for: those
    it imports, those whose kernels it launches, and,
    in a package's ``__init__`` or a file related to none of those, its package's own."""
    project, program = ctx.project, ctx.program
    defining = _kernel_modules(program)
    found = {s.module_name: s for s in project.imported_project_modules(summary) if s.module_name in defining}
    for index in range(len(ctx.facts.launches)):
        for kernel in program.launch_kernels(summary.module_name, index):
            owner = project.module(getattr(kernel, "module", ""))
            if owner is not None and owner.module_name in defining:
                found.setdefault(owner.module_name, owner)
    package = summary.module_name if summary.path.endswith("__init__.py") else None
    if package is None and not found:
        # Related to no kernel module by imports or launches (a configuration helper): meant
        # for its package's.
        package = summary.module_name.rpartition(".")[0]
    if package is not None:
        for other in project.files.values():
            name = other.module_name
            inside = name.startswith(package + ".") if package else "." not in name
            if inside and name in defining:
                found.setdefault(name, other)
    found.pop(summary.module_name, None)
    return list(found.values())


def _kernel_modules(program: "Program") -> frozenset[str]:
    """The project modules that define a kernel (with ``@wp.kernel``, a project's own kernel
    decorator, or in a factory): those ``module=`` may name."""
    return program.memo("WCT014.kernel_modules",
                        lambda: frozenset(ref.module for ref, kernel in program.kernels() if kernel.decorator == "kernel"))


def _sets_the_same(ctx: FileContext, module: "FileSummary", facts, call: ast.Call) -> bool:
    """``module`` sets every option ``call`` sets, to the same constant, for itself."""
    own = _own_literal_options(ctx.project.facts(module))
    wanted = _call_options(facts, call)
    return wanted is not None and all(own.get(name) == value for name, value in wanted.items())


def _call_options(facts, call: ast.Call) -> dict[str, object] | None:
    """The constant options of the bare ``set_module_options`` at ``call`` (None: not all known)."""
    for option in facts.options:
        if option.kind == "module_options" and option.target is None and option.span[:2] == (call.lineno, call.col_offset):
            if "*" in option.options:
                return None
            values = {name: value.data for name, value in option.options.items() if value.kind == "const"}
            return values if len(values) == len(option.options) else None
    return None


def _own_literal_options(facts) -> dict[str, object]:
    """The constant options a module sets for itself at a bare ``set_module_options``."""
    own: dict[str, object] = {}
    for option in facts.options:
        if option.kind == "module_options" and option.target is None and "*" not in option.options:
            own.update({name: value.data for name, value in option.options.items() if value.kind == "const"})
    return own


def _surely_defines_warp_code(text: str) -> bool:
    """From the text alone: a ``@wp.kernel``/``@wp.func``/``@wp.struct``... decorator whose
    ``wp`` is the module-level ``import warp as wp`` and nothing else. The alias appears
    bare (not followed by a dot) nowhere but in that import: any other binding of the name
    (a parameter, an assignment, another import) would be such an appearance."""
    imports = list(textscan.finditer_lines(_WARP_ALIAS_RE, "import", text))
    for alias in {match.group(1) or "warp" for match in imports}:
        bare = sum(1 for _ in textscan.finditer_at(re.compile(rf"\b{alias}\b(?!\s*\.)"), alias, text))
        if bare != sum(1 for match in imports if (match.group(1) or "warp") == alias):
            continue
        decorator = rf"^[ \t]*@[ \t]*{alias}[ \t]*\.[ \t]*(?:kernel|func|struct|func_native|func_grad|func_replay)\b"
        if textscan.search_lines(re.compile(decorator, re.MULTILINE), "@", text):
            return True
    return False


def _defines_warp_code(tree: ast.Module, ctx: FileContext) -> bool:
    for node in syntax.nodes_of_class(tree, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            name = ctx.warp_name(target)
            if name and (name.rsplit(".", 1)[-1] in _DEFINERS or name.startswith("warp.fem.")):
                # ``@fem.integrand``: warp.fem builds its kernels in the integrand's module
                return True
    for call in syntax.nodes_of_class(tree, ast.Call):
        name = ctx.call_name(call)
        if name and name.rsplit(".", 1)[-1] in _DEFINERS:
            return True  # ``k = wp.kernel(f)``, ``wp.overload(...)``, ``wp.Kernel(...)``
    return False


def _target_fix(call: ast.Call, owner: str, ctx: FileContext):
    existing = ctx.keyword(call, "module", 1)
    if existing is not None:
        edit = ctx.replace_node(existing, repr(owner).replace("'", '"'))
    else:
        end = ctx.node_range(call).end
        before = ctx.text[: ctx.index.offset(end.line, end.character - 1)].rstrip()
        prefix = " " if before.endswith(",") else ", "
        edit = ctx.insert_at(end.line, end.character - 1, f'{prefix}module="{owner}"')
    return [ctx.fix(f"Target module `{owner}`", edit, safe=False)]
