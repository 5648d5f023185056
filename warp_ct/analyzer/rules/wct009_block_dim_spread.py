"""WCT009 block-dim-spread."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from warp_ct.analyzer import syntax
from warp_ct.analyzer.context import FileContext
from warp_ct.analyzer.flows import launch_calls
from warp_ct.analyzer.model import Severity
from warp_ct.analyzer.rules.base import Rule
from warp_ct.analyzer.rules.wct008_cache_destroyed import is_test_harness
from warp_ct.analyzer.rules.wct013_unique_ignores_module_options import bare_module_option_calls, dict_items

if TYPE_CHECKING:
    from warp_ct.analyzer.project import FileSummary, Project

DEFAULT_BLOCK_DIM = 256
_RUNTIME = "runtime"


def kernel_module_of(expr: ast.AST | None, ctx: FileContext) -> tuple[str, str, int] | None:
    """(module key, kernel name, kernels in that module) for a kernel reference, when the
    kernel is provably a ``@wp.kernel`` of this file or of a linted project module.
    ``module="unique"`` kernels get a key of their own."""
    if isinstance(expr, ast.Name):
        _scope, bindings = syntax.lookup(expr)
        if len(bindings) != 1:
            return None
        binding = bindings[0]
        if isinstance(binding, syntax.FUNCTION_TYPES):
            decorator = ctx.kernel_decorator(binding)
            if decorator is None:
                return None
            module = decorator.keywords.get("module")
            if module is None:
                return ctx.module_name, binding.name, _kernel_counts(ctx)[0]
            if isinstance(module, ast.Constant) and module.value == "unique":
                return f"unique:{binding.lineno}:{binding.name}", binding.name, 1
            if isinstance(module, ast.Constant) and isinstance(module.value, str):
                return f"named:{module.value}", binding.name, _kernel_counts(ctx)[1].get(module.value, 0)
            return None
        if isinstance(binding, ast.ImportFrom):
            summary = ctx.project.files.get(ctx.path)
            base = syntax.absolute_module(ctx.module_name, ctx.is_package, binding.module, binding.level)
            for alias in binding.names:
                if (alias.asname or alias.name) == expr.id:
                    return _project_kernel(base, alias.name, ctx) if summary is not None else None
        return None
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        _scope, bindings = syntax.lookup(expr.value)
        if len(bindings) == 1 and isinstance(bindings[0], ast.Import):
            for alias in bindings[0].names:
                if alias.asname == expr.value.id:
                    return _project_kernel(alias.name, expr.attr, ctx)
    return None


def _kernel_counts(ctx: FileContext) -> tuple[int, dict[str, int]]:
    """(kernels of the file's own module, kernels per ``module="name"``), once per file:
    counting per launch made a file with thousands of launches quadratic."""
    counts = ctx.state.get("WCT009.kernel_counts")
    if counts is None:
        shared, named = 0, {}
        for decorator in ctx.kernel_decorators():
            if "module" not in decorator.keywords:
                shared += 1
            elif isinstance(name := decorator.keyword_const("module"), str):
                named[name] = named.get(name, 0) + 1
        counts = ctx.state["WCT009.kernel_counts"] = (shared, named)
    return counts


def _project_kernel(module_name: str, kernel: str, ctx: FileContext) -> tuple[str, str, int] | None:
    summary = ctx.project.module(module_name)
    if summary is None or kernel not in summary.kernel_names:
        return None
    return module_name, kernel, len(summary.kernel_names)


@dataclass
class _Launch:
    call: ast.Call
    kernel: str
    value: object  # int, or _RUNTIME
    text: str  # how the block_dim is written ("" when omitted)
    varies: bool = False  # the runtime value comes from a parameter or a loop variable


@dataclass
class _ModuleLaunches:
    kernels: int
    launches: list[_Launch] = field(default_factory=list)


class BlockDimSpread(Rule):
    code = "WCT009"
    name = "block-dim-spread"
    severity = Severity.WARNING
    summary = "One Warp module launched at several block_dims is compiled once per block_dim"
    triggers = (r"block_dim|get_suggested_block_size",)
    docs = '''
    ## What it does
    Looks at the `wp.launch` / `wp.launch_tiled` calls of each file and the Warp module
    each launched kernel belongs to (the module of the file that defines it, unless the
    kernel has `module="unique"`). It flags:

    - a module with several kernels launched at different `block_dim` values (an omitted
      `block_dim` means the module's default, 256);
    - a `block_dim` chosen at run time (a parameter or loop variable) for a kernel that
      shares its module with other kernels;
    - `wp.get_suggested_block_size(kernel)` when the same module is then launched at a
      block_dim other than its default.

    Launches on `device="cpu"` are ignored: on the CPU the block_dim is always 1.

    ## Why it costs compile time
    The block_dim is part of a module's build: every distinct block_dim a module is
    launched at compiles the whole module again, all of its kernels, not just the one
    launched. `get_suggested_block_size` has to load the module to ask the driver, and
    it loads it at the module's default block_dim (256); launching afterwards at the
    suggested size (or any other) is a second full build.

    ## Example
    ```python
    import warp as wp

    @wp.kernel
    def transpose(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
        i, j = wp.tid()
        b[j, i] = a[i, j]

    @wp.kernel
    def scale(a: wp.array2d(dtype=float), s: float):
        i, j = wp.tid()
        a[i, j] = a[i, j] * s

    def step(a, b):
        wp.launch(scale, dim=a.shape, inputs=[a, 2.0])
        wp.launch(transpose, dim=a.shape, inputs=[a, b], block_dim=64)  # WCT009

    def tuned(a):
        block, _ = wp.get_suggested_block_size(scale)  # WCT009
        wp.launch(scale, dim=a.shape, inputs=[a, 0.5], block_dim=block)
    ```

    ## Use instead
    Keep one block_dim per module: put kernels that need another block_dim in a module
    of their own (`module="unique"` or a separate file), and set a module's default with
    `wp.set_module_options({"block_dim": ...})` instead of passing a different value per
    launch:
    ```python
    import warp as wp

    @wp.kernel(module="unique")
    def transpose(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
        i, j = wp.tid()
        b[j, i] = a[i, j]

    @wp.kernel
    def scale(a: wp.array2d(dtype=float), s: float):
        i, j = wp.tid()
        a[i, j] = a[i, j] * s

    def step(a, b):
        wp.launch(scale, dim=a.shape, inputs=[a, 2.0])
        wp.launch(transpose, dim=a.shape, inputs=[a, b], block_dim=64)
    ```

    ## When not to apply
    Sweeping block_dims on purpose (a benchmark) builds the module once per value by
    design; in test code (`test_*.py`, files under `tests/`) findings are information
    only, since tests exercise block_dims on purpose; a module with a single kernel is not reported, since every build is needed
    anyway. CPU launches never matter:
    ```python
    import warp as wp

    @wp.kernel
    def scale(a: wp.array(dtype=float), s: float):
        i = wp.tid()
        a[i] = a[i] * s

    def sweep(a):
        for block in (64, 128, 256):
            wp.launch(scale, dim=a.shape, inputs=[a, 1.0], block_dim=block)

    def on_cpu(a):
        wp.launch(scale, dim=a.shape, inputs=[a, 1.0], block_dim=32, device="cpu")
    ```
    '''

    def needs_tree(self, summary: "FileSummary", project: "Project") -> bool:
        text = summary.text
        if "get_suggested_block_size" in text:
            return True
        # Without an explicit ``block_dim=`` every launch of a module uses its one default:
        # some launch must have the word among its arguments, i.e. before the next launch.
        starts = [start for start, _end, _label in launch_calls(text)]
        ends = [*starts[1:], len(text)]
        return any(text.find("block_dim", start, end) >= 0 for start, end in zip(starts, ends))

    def leave_module(self, node: ast.Module, ctx: FileContext) -> None:
        file_default = _file_default_block_dim(ctx)
        modules: dict[str, _ModuleLaunches] = {}
        queries: list[tuple[ast.Call, str]] = []
        for call in ctx.calls_to("warp.get_suggested_block_size", "warp.launch", "warp.launch_tiled"):
            name = ctx.call_name(call)
            if name == "warp.get_suggested_block_size":
                if _on_cpu(ctx.keyword(call, "device", 1)):
                    continue
                resolved = kernel_module_of(ctx.keyword(call, "kernel", 0), ctx)
                if resolved is not None:
                    queries.append((call, resolved[0]))
                continue
            if name not in ("warp.launch", "warp.launch_tiled"):
                continue
            if any(kw.arg is None for kw in call.keywords) or any(isinstance(a, ast.Starred) for a in call.args):
                continue
            if _on_cpu(ctx.keyword(call, "device", 6 if name == "warp.launch" else None)):
                continue
            resolved = kernel_module_of(ctx.keyword(call, "kernel", 0), ctx)
            if resolved is None:
                continue
            key, kernel, count = resolved
            default = file_default if key == ctx.module_name else DEFAULT_BLOCK_DIM
            block = ctx.keyword(call, "block_dim")
            if block is None or (isinstance(block, ast.Constant) and block.value is None):
                launch = _Launch(call, kernel, default, "")
            else:
                value = _int_value(block, ctx)
                if value is None:
                    launch = _Launch(call, kernel, _RUNTIME, ctx.source_of(block), _varies(block))
                else:
                    launch = _Launch(call, kernel, value, ctx.source_of(block))
            modules.setdefault(key, _ModuleLaunches(count)).launches.append(launch)

        if is_test_harness(ctx.path):
            ctx.state[self.code] = Severity.INFO  # tests exercise block_dims on purpose
        for key, group in modules.items():
            if group.kernels < 2 or key.startswith("unique:"):
                continue
            self._check_spread(key, group, ctx)
        for call, key in queries:
            self._check_query(call, key, modules.get(key), file_default if key == ctx.module_name else DEFAULT_BLOCK_DIM, ctx)

    def _check_spread(self, key: str, group: _ModuleLaunches, ctx: FileContext) -> None:
        module = _display(key)
        constants = [launch for launch in group.launches if launch.value is not _RUNTIME]
        first = constants[0] if constants else None
        seen_values = {first.value} if first else set()
        for launch in group.launches:
            if launch.value is _RUNTIME:
                if not launch.varies:
                    continue
                others = f" and other kernels of it at block_dim {first.value} (line {first.call.lineno})" if first else ""
                ctx.report(
                    launch.call,
                    f"block_dim `{launch.text}` is chosen at run time for `{launch.kernel}`, which shares module "
                    f"{module} with {group.kernels - 1} other kernel(s){others}: every distinct value compiles the "
                    "whole module again; give this kernel a module of its own (module=\"unique\")",
                    severity=Severity.INFO,
                )
                continue
            if launch.value in seen_values:
                continue
            seen_values.add(launch.value)
            assert first is not None
            ctx.report(
                launch.call,
                f"module {module} is launched at block_dim {launch.value} here and at {first.value} for "
                f"`{first.kernel}` (line {first.call.lineno}): each block_dim compiles the whole module again, all "
                f"{group.kernels} kernels; give kernels that need another block_dim a module of their own",
                severity=ctx.state.get(self.code),
            )

    def _check_query(self, call: ast.Call, key: str, group: _ModuleLaunches | None, default: int,
                     ctx: FileContext) -> None:  # fmt: skip
        if group is None:
            return
        for launch in group.launches:
            if launch.value == default:
                continue
            shown = launch.text or str(launch.value)
            ctx.report(
                call,
                f"`get_suggested_block_size` loads module {_display(key)} at its default block_dim {default} to "
                f"ask the driver; the launch at line {launch.call.lineno} uses block_dim={shown}, a second build "
                "of the whole module; set the module's default block_dim to the value you launch with, or keep "
                "the suggested size from an earlier run",
                severity=ctx.state.get(self.code),
            )
            return


def _display(key: str) -> str:
    if key.startswith("unique:"):
        return f"`{key.rsplit(':', 1)[-1]}` (unique)"
    if key.startswith("named:"):
        return f"`{key[6:]}`"
    return f"`{key}`"


def _file_default_block_dim(ctx: FileContext) -> int:
    value = DEFAULT_BLOCK_DIM
    for call in bare_module_option_calls(ctx):
        for k, v in dict_items(ctx.keyword(call, "options", 0)) or []:
            if k.value == "block_dim":
                got = _int_value(v, ctx)
                if got is not None:
                    value = got
    return value


_INT_OPS = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b, ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b,
    ast.Pow: lambda a, b: a**b if b < 64 else None,
}  # fmt: skip


def _int_value(node: ast.AST | None, ctx: FileContext, depth: int = 0) -> int | None:
    """An int the expression has on every path: literals, names assigned exactly once to
    such an expression, arithmetic on them, and constants of imported modules. Anything
    else (``self.x``, a name assigned in two branches) is a run-time value."""
    if node is None or depth > 6:
        return None
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, int) and not isinstance(node.value, bool) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _int_value(node.operand, ctx, depth + 1)
        return -value if value is not None else None
    if isinstance(node, ast.BinOp) and type(node.op) in _INT_OPS:
        left, right = _int_value(node.left, ctx, depth + 1), _int_value(node.right, ctx, depth + 1)
        if left is None or right is None:
            return None
        try:
            return _INT_OPS[type(node.op)](left, right)
        except (ArithmeticError, ValueError):
            return None
    if isinstance(node, ast.Name):
        _scope, bindings = syntax.lookup(node)
        if len(bindings) != 1 or not (isinstance(bindings[0], ast.Name) and syntax.is_store(bindings[0])):
            return None
        assign = bindings[0].parent  # type: ignore[attr-defined]
        if isinstance(assign, (ast.Assign, ast.AnnAssign)) and assign.value is not None:
            targets = assign.targets if isinstance(assign, ast.Assign) else [assign.target]
            if any(t is bindings[0] for t in targets):
                return _int_value(assign.value, ctx, depth + 1)
        return None
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        _scope, bindings = syntax.lookup(node.value)
        if len(bindings) == 1 and isinstance(bindings[0], (ast.Import, ast.ImportFrom)):
            from astroid import nodes as anodes

            value = ctx.infer_one(node)  # a constant of another module, e.g. ``cfg.BLOCK_DIM``
            if isinstance(value, anodes.Const) and isinstance(value.value, int) and not isinstance(value.value, bool):
                return value.value
    return None


def _on_cpu(device: ast.AST | None) -> bool:
    return isinstance(device, ast.Constant) and isinstance(device.value, str) and device.value.startswith("cpu")


def _varies(expr: ast.AST) -> bool:
    """The expression reads a parameter of its function or a loop variable directly (not an
    attribute of one: ``cfg.block_dim`` is usually fixed for the run)."""
    for name in syntax.nodes_of_class(expr, ast.Name):
        if not isinstance(name.ctx, ast.Load):
            continue  # ``(b := 64)`` binds ``b``, it does not read it
        parent = name.parent  # type: ignore[attr-defined]
        if isinstance(parent, (ast.Attribute, ast.Subscript)) or (isinstance(parent, ast.Call) and name is parent.func):
            continue
        _scope, bindings = syntax.lookup(name)
        for binding in bindings:
            if isinstance(binding, ast.arg):
                args = binding.parent  # type: ignore[attr-defined]
                # ``*args`` / ``**kwargs`` hold a tuple / dict, never a block_dim themselves.
                if binding is not args.vararg and binding is not args.kwarg:
                    return True
            elif isinstance(binding, ast.Name):
                holder = binding.parent  # type: ignore[attr-defined]
                if isinstance(holder, _LOOP_HOLDERS) or isinstance(getattr(holder, "parent", None), _LOOP_HOLDERS):
                    return True
    return False


_LOOP_HOLDERS = (ast.For, ast.AsyncFor, ast.comprehension)
