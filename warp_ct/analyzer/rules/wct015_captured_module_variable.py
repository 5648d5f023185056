"""WCT015 captured-module-variable."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

from warp_ct.analyzer import syntax
from warp_ct.analyzer.context import FileContext
from warp_ct.analyzer.facts import FEM_CALLS
from warp_ct.analyzer.model import Severity
from warp_ct.analyzer.rules.base import Rule

if TYPE_CHECKING:
    from warp_ct.analyzer.project import FileSummary, Project

# Values that are never a Warp scalar, vector or matrix (the only globals Warp hashes).
_NOT_VALUES = (ast.JoinedStr, ast.List, ast.Dict, ast.Set, ast.Tuple, ast.ListComp, ast.DictComp, ast.SetComp,
               ast.GeneratorExp, ast.Lambda)  # fmt: skip
_ARRAY_MAKERS = frozenset({
    "array", "zeros", "zeros_like", "empty", "empty_like", "ones", "ones_like", "full", "full_like", "clone",
    "from_numpy", "from_torch", "from_jax", "from_paddle", "from_dlpack", "indexedarray", "HashGrid", "Mesh",
    "Volume", "Bvh", "Tape", "ScopedDevice", "get_device",
})  # fmt: skip
_NOT_VALUE_PACKAGES = ("numpy.", "np.", "torch.", "jax.", "cupy.", "paddle.", "os.", "pathlib.", "argparse.")


class CapturedModuleVariable(Rule):
    code = "WCT015"
    name = "captured-module-variable"
    severity = Severity.WARNING
    summary = "A module variable named like a kernel's parameter is hashed into it and rebuilds its module when it changes"
    # A module-level ``@fem.integrand`` (warp.fem adds functions to this file's module).
    triggers = (r"^@[\w.]*\bintegrand\b",)
    docs = '''
    ## What it does
    Flags a variable of a script's module scope (the `if __name__ == "__main__":` block, a
    loop at module level) that has the name of a parameter or loop variable of one of the
    file's kernels or `wp.func`s, when the file's Warp module is hashed again after the
    variable is set: a `fem.integrate` or `fem.interpolate` of one of the file's integrands
    that first runs after that line makes warp.fem add functions (the integrand's
    specialization, its interpolation wrapper) to the module, which is already loaded.

    ## Why it costs compile time
    Warp hashes into a kernel every value it finds under a name the kernel reads and does not
    assign with `=` in its body. It looks such names up in the module's globals, and a
    parameter is no exception (Warp 1.19's `Adjoint.get_references`): while the script's
    `loss` is unset the kernel `add_penalty(loss: wp.array(...))` hashes as before, but once
    `loss = example.step()` has run, the module's next hash holds the float and differs.
    warp.fem registers functions in the integrand's module the first time it builds a kernel
    for an integrand (also for one that another, already built integrand calls), which makes
    Warp hash the module again: with the variable set in between, the
    whole module is built a second time (Warp's own `example_elastic_shape_optimization`
    builds `__main__` twice this way). A variable that changes between runs (a command-line
    value) also makes every new value a cold build.

    ## Example
    ```python
    import warp as wp
    import warp.fem as fem


    @fem.integrand
    def mass_form(s: fem.Sample, u: fem.Field, v: fem.Field):
        return u(s) * v(s)


    @fem.integrand
    def area_form(s: fem.Sample):
        return 1.0


    @wp.kernel
    def add_penalty(loss: wp.array(dtype=float), area: wp.array(dtype=float), weight: float):
        loss[0] += weight * area[0]


    class Example:
        def __init__(self):
            geo = fem.Grid2D(res=wp.vec2i(4))
            space = fem.make_polynomial_space(geo, degree=1)
            self.domain = fem.Cells(geo)
            self.test = fem.make_test(space, domain=self.domain)
            self.trial = fem.make_trial(space, domain=self.domain)
            self.loss = wp.zeros(1, dtype=float)
            self.area = wp.zeros(1, dtype=float)

        def step(self):
            fem.integrate(mass_form, fields={"u": self.trial, "v": self.test}, output_dtype=float)
            wp.launch(add_penalty, dim=1, inputs=[self.loss, self.area, 0.5])
            return float(self.loss.numpy()[0])

        def report(self):
            return float(fem.integrate(area_form, domain=self.domain))


    if __name__ == "__main__":
        example = Example()
        for k in range(10):
            loss = example.step()  # WCT015
            if k == 0:
                print(loss, example.report())
    ```

    ## Use instead
    Give the script's variable a name no kernel reads, or keep the script's code in a
    function, whose variables are not module globals:
    ```python
    import warp as wp
    import warp.fem as fem


    @fem.integrand
    def area_form(s: fem.Sample):
        return 1.0


    @wp.kernel
    def add_penalty(loss: wp.array(dtype=float), area: wp.array(dtype=float), weight: float):
        loss[0] += weight * area[0]


    def run(domain, loss_array, area_array):
        for k in range(10):
            wp.launch(add_penalty, dim=1, inputs=[loss_array, area_array, 0.5])
            loss = float(loss_array.numpy()[0])
            if k == 0:
                print(loss, fem.integrate(area_form, domain=domain))
    ```

    ## When not to apply
    When every `fem.integrate` / `fem.interpolate` of the file's integrands that runs after the
    variable is set also ran before it (the same integrand, the same call), nothing hashes the
    module again during the run, and the value is the same in every run: it costs nothing,
    and is not reported.
    ```python
    import warp as wp
    import warp.fem as fem


    @fem.integrand
    def area_form(s: fem.Sample):
        return 1.0


    @wp.kernel
    def add_penalty(loss: wp.array(dtype=float), area: wp.array(dtype=float), weight: float):
        loss[0] += weight * area[0]


    def step(domain, loss_array, area_array):
        area_array.fill_(float(fem.integrate(area_form, domain=domain)))
        wp.launch(add_penalty, dim=1, inputs=[loss_array, area_array, 0.5])
        return float(loss_array.numpy()[0])


    if __name__ == "__main__":
        domain = fem.Cells(fem.Grid2D(res=wp.vec2i(4)))
        loss_array, area_array = wp.zeros(1, dtype=float), wp.zeros(1, dtype=float)
        for k in range(10):
            loss = step(domain, loss_array, area_array)
    ```
    '''

    def needs_tree(self, summary: "FileSummary", project: "Project") -> bool:
        return summary.defines_kernels  # a finding needs a launch of one of the file's kernels

    def leave_module(self, node: ast.Module, ctx: FileContext) -> None:
        integrands = {
            func.name: func for func in node.body
            if isinstance(func, syntax.FUNCTION_TYPES) and ctx.kernel_decorator(func, ("integrand",))
        }  # fmt: skip
        if not integrands:
            return
        readers = _own_name_readers(node, ctx)
        if not readers:
            return
        flow = _Flow(node, integrands, ctx)
        for binding, name, built_after, built_before, launched in _module_bindings(node, set(readers), flow):
            late = built_after - built_before
            if not late or not launched:
                continue
            kernel, what = readers[name]
            kind, first_late = min(late, key=lambda pair: (integrands[pair[1]].lineno, pair[0]))
            ctx.report(binding, (
                f"`{name}` is a module variable, and `{kernel.name}` (line {kernel.lineno}) reads a {what} of that "
                f"name: Warp looks the name up among the module's globals and hashes this value into the kernel. "
                f"`fem.{kind}` of integrand `{first_late}` first runs after this line and adds functions to the module "
                f"after the module was loaded, so Warp hashes it again with `{name}` set and builds it a second time; "
                "rename the variable or move this code into a function"
            ))  # fmt: skip


def _own_name_readers(tree: ast.Module, ctx: FileContext) -> dict[str, tuple[ast.FunctionDef, str]]:
    """name -> (the first kernel or ``wp.func`` that reads the name as one of its own without
    assigning it with ``=``, the only binding Warp's hashing leaves out; what the name is
    there: "parameter", "loop variable" or "variable" (a ``+=`` target)). Not ``module="unique"``
    kernels: their module is their own."""
    out: dict[str, tuple[ast.FunctionDef, str]] = {}
    for func in syntax.nodes_of_class(tree, syntax.FUNCTION_TYPES):
        decorator = func.decorator_list and ctx.kernel_decorator(func, ("kernel", "func"))
        if not decorator or decorator.is_unique:
            continue
        args = func.args
        own = dict.fromkeys((a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)), "parameter")
        assigned: set[str] = set()
        read: set[str] = set()
        for child in ast.walk(func):
            if isinstance(child, ast.Assign):
                assigned.update(n.id for target in child.targets for n in ast.walk(target) if isinstance(n, ast.Name))
            elif isinstance(child, (ast.For, ast.AsyncFor)):
                for name in ast.walk(child.target):
                    if isinstance(name, ast.Name):
                        own.setdefault(name.id, "loop variable")
            elif isinstance(child, ast.Name) and child is not func:
                read.add(child.id)
                if isinstance(child.ctx, ast.Store):
                    own.setdefault(child.id, "variable")
        for name in sorted((own.keys() - assigned) & read):
            out.setdefault(name, (func, own[name]))  # type: ignore[arg-type]
    return out


def _functions_by_name(tree: ast.Module) -> dict[str, list[ast.AST]]:
    """The file's functions and methods by name; a class by its name, for its ``__init__``."""
    out: dict[str, list[ast.AST]] = {}
    for item in syntax.nodes_of_class(tree, (*syntax.FUNCTION_TYPES, ast.ClassDef)):
        if isinstance(item, ast.ClassDef):
            out.setdefault(item.name, []).extend(
                f for f in item.body if isinstance(f, syntax.FUNCTION_TYPES) and f.name == "__init__")
        else:
            out.setdefault(item.name, []).append(item)
    return out


_Built = frozenset[tuple[str, str]]  # ("integrate" / "interpolate", integrand) pairs: ``_Flow.built_by``


def _module_bindings(tree: ast.Module, names: set[str], flow: "_Flow") -> Iterator[tuple[ast.Name, str, _Built, _Built, bool]]:
    """(target, name, fem calls of integrands run after it, and before it, whether one of the
    file's kernels was launched before it) for every module-scope binding of one of ``names`` to
    what may be a Warp value. A loop's body runs again after a binding in it. Before and after
    are carried as running unions, so a file's bindings cost one pass over its statements."""

    def walk(body: list[ast.stmt], before: _Built, launched: bool, after: _Built):
        # A definition runs no code of its body where it stands: only calls reach it.
        body = [s for s in body if not isinstance(s, (*syntax.FUNCTION_TYPES, ast.ClassDef))]
        suffix: list[_Built] = [frozenset()] * (len(body) + 1)  # what the statements from i on build
        for index in range(len(body) - 1, -1, -1):
            suffix[index] = suffix[index + 1] | flow.built_by(body[index])
        for index, statement in enumerate(body):
            rest = suffix[index + 1] | after
            looping = isinstance(statement, (ast.For, ast.AsyncFor, ast.While))
            # What runs before the name is bound: the value (a loop's iterable); after it: the
            # rest, a loop's body, and every enclosing loop again.
            ran = [statement.iter] if isinstance(statement, (ast.For, ast.AsyncFor)) else (
                [statement.value] if getattr(statement, "value", None) else [])  # fmt: skip
            ran_built = frozenset().union(*map(flow.built_by, ran))
            ran_launched = any(map(flow.launches, ran))
            runs = flow.built_by(statement) if isinstance(statement, (ast.For, ast.AsyncFor)) else frozenset()
            for target, value in _bound(statement):
                if target.id in names and _may_be_value(value):
                    yield target, target.id, runs | rest, before | ran_built, launched or ran_launched
            head = [part for part in (getattr(statement, "test", None), getattr(statement, "iter", None)) if part]
            inner_before = before | frozenset().union(*map(flow.built_by, head))
            inner_launched = launched or any(map(flow.launches, head))
            inner_after = rest | (flow.built_by(statement) if looping else frozenset())
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(statement, field, None)
                if inner and isinstance(inner, list):
                    statements = [s for item in inner for s in (item.body if isinstance(item, ast.ExceptHandler) else [item])]
                    yield from walk(statements, inner_before, inner_launched, inner_after)
            before = before | flow.built_by(statement)
            launched = launched or flow.launches(statement)

    yield from walk(tree.body, frozenset(), False, frozenset())


def _bound(statement: ast.stmt) -> Iterator[tuple[ast.Name, ast.AST | None]]:
    if isinstance(statement, ast.Assign):
        pairs = [(target, statement.value) for target in statement.targets]
    elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
        pairs = [(statement.target, statement.value)]
    elif isinstance(statement, (ast.For, ast.AsyncFor)):
        pairs = [(statement.target, None)]  # an element of the iterable: may be a number
    else:
        return
    for target, value in pairs:
        if isinstance(target, ast.Name):
            yield target, value
        elif isinstance(target, (ast.Tuple, ast.List)):
            yield from ((n, None) for n in ast.walk(target) if isinstance(n, ast.Name))


def _may_be_value(value: ast.AST | None) -> bool:
    """False for what is never a Warp scalar, vector or matrix: strings, displays, arrays."""
    if value is None:
        return True
    if isinstance(value, ast.Constant):
        return isinstance(value.value, (bool, int, float))
    if isinstance(value, _NOT_VALUES):
        return False
    if isinstance(value, ast.Call):
        callee = syntax.dotted_text(value.func) or ""
        return callee.rsplit(".", 1)[-1] not in _ARRAY_MAKERS and not callee.startswith(_NOT_VALUE_PACKAGES)
    return True


class _Flow:
    """What running a piece of the file's module-scope code does, through the file's own
    functions called by name: which integrands warp.fem builds, whether one of the file's
    kernels is launched. Memoized per statement, so that asking about every binding of a
    file costs one walk of each statement and of each function it reaches."""

    def __init__(self, tree: ast.Module, integrands: dict[str, ast.AST], ctx: FileContext):
        self.functions = _functions_by_name(tree)
        self.integrands = integrands
        self.kernels = {d.funcdef.name for d in ctx.kernel_decorators() if not d.is_unique}
        self.ctx = ctx
        self._memo: dict[int, tuple[_Built, bool]] = {}

    def built_by(self, node: ast.AST) -> _Built:
        """("integrate" / "interpolate", integrand) of the file's integrands warp.fem builds a
        kernel for when ``node`` runs. Each new one registers functions (the integrand's
        specialization, ``interpolate_at_nodes_fn_*``) in the integrand's module: measured on
        Warp's examples, also for an integrand that another, already built one calls."""
        return self._of(node)[0]

    def launches(self, node: ast.AST) -> bool:
        """Whether ``node`` launches one of the file's kernels (a launch of a kernel defined
        elsewhere loads another module)."""
        return self._of(node)[1]

    def _of(self, node: ast.AST) -> tuple[_Built, bool]:
        found = self._memo.get(id(node))
        if found is None:
            integrands: set[tuple[str, str]] = set()
            launches = False
            for call in self._reached(node):
                name = self.ctx.call_name(call)
                if name in FEM_CALLS and call.args and isinstance(call.args[0], ast.Name) and call.args[0].id in self.integrands:
                    integrands.add((name.rsplit(".", 1)[-1], call.args[0].id))
                elif name in ("warp.launch", "warp.launch_tiled"):
                    kernel = self.ctx.keyword(call, "kernel", 0)
                    launches = launches or (isinstance(kernel, ast.Name) and kernel.id in self.kernels)
            found = self._memo[id(node)] = (frozenset(integrands), launches)
        return found

    def _reached(self, node: ast.AST) -> Iterator[ast.Call]:
        """Every call in ``node`` and in the file's functions it calls, by name, transitively."""
        seen: set[int] = set()
        pending = [node]
        while pending:
            for child in ast.walk(pending.pop()):
                if not isinstance(child, ast.Call):
                    continue
                yield child
                callee = child.func.attr if isinstance(child.func, ast.Attribute) else getattr(child.func, "id", None)
                for function in self.functions.get(callee or "", ()):
                    if id(function) not in seen:
                        seen.add(id(function))
                        pending.append(function)
