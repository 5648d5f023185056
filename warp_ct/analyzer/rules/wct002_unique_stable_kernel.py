"""WCT002 unique-stable-kernel."""

from __future__ import annotations

from astroid import nodes

from warp_ct.analyzer.context import FileContext, KernelDecorator
from warp_ct.analyzer.model import Applicability, Range, Severity, TextEdit
from warp_ct.analyzer.rules.base import Rule

# Per-kernel options that only take effect in a module of the kernel's own.
_NEEDS_OWN_MODULE = ("module_options", "enable_backward")


class UniqueStableKernel(Rule):
    code = "WCT002"
    name = "unique-stable-kernel"
    severity = Severity.INFO
    summary = '`module="unique"` on a kernel defined once at module scope gives it a module (and a build) of its own'
    fix_applicability = Applicability.UNSAFE
    triggers = (r"module\s*=\s*['\"]unique['\"]",)
    docs = '''
    ## What it does
    Flags `@wp.kernel(module="unique")` on a kernel defined at module scope, in a file
    that defines other kernels too, when the kernel passes no options of its own.

    ## Why it costs compile time
    Warp compiles modules, not kernels. A `module="unique"` kernel gets a module of its
    own, so each such kernel pays a full module build (code generation, a compiler
    invocation, loading) instead of sharing one build with the other kernels of its
    file. `module="unique"` exists for kernels created per call with different captured
    values; a kernel defined once at module scope never changes, so it gains nothing
    from a separate module.

    ## Example
    ```python
    import warp as wp

    @wp.kernel(module="unique")  # WCT002
    def integrate(x: wp.array(dtype=float), v: wp.array(dtype=float), dt: float):
        i = wp.tid()
        x[i] = x[i] + v[i] * dt

    @wp.kernel(module="unique")  # WCT002
    def damp(v: wp.array(dtype=float), k: float):
        i = wp.tid()
        v[i] = v[i] * k
    ```

    ## Use instead
    ```python
    import warp as wp

    @wp.kernel
    def integrate(x: wp.array(dtype=float), v: wp.array(dtype=float), dt: float):
        i = wp.tid()
        x[i] = x[i] + v[i] * dt

    @wp.kernel
    def damp(v: wp.array(dtype=float), k: float):
        i = wp.tid()
        v[i] = v[i] * k
    ```

    ## When not to apply
    Keep `module="unique"` where the kernel needs options of its own, and on kernels
    created per call by a factory (each specialisation then owns a small module instead
    of rebuilding a shared one):
    ```python
    import warp as wp

    @wp.kernel(module="unique", enable_backward=False)
    def forward_only(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = 2.0 * x[i]

    @wp.kernel(module="unique", module_options={"max_unroll": 1})
    def no_unroll(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = 3.0 * x[i]

    def make_scale(s: float):
        @wp.kernel(module="unique")
        def scale(x: wp.array(dtype=float)):
            i = wp.tid()
            x[i] = s * x[i]

        return scale
    ```
    A file with a single kernel is not reported: it builds one module either way. The
    fix (dropping `module="unique"`) is unsafe: the kernel then joins the file's module
    and takes that module's options (`wp.set_module_options` of the file), and editing
    any kernel of the file rebuilds it too. When only a few of many kernels of a large
    file are ever launched, separate modules may build less; measure with
    `warp-ct probe measure` before and after.
    '''

    def visit_module(self, node: nodes.Module, ctx: FileContext) -> None:
        stable = [dec for dec in ctx.kernel_decorators() if _is_stable(dec.funcdef)]
        if len(stable) < 2:
            return
        for dec in stable:
            if not dec.is_unique or dec.call is None:
                continue
            if any(name in dec.keywords for name in _NEEDS_OWN_MODULE):
                continue
            others = len(stable) - 1
            message = (
                f'`module="unique"` gives the kernel `{dec.funcdef.name}` a module of its own: it is built '
                f"separately from the {others} other kernel{'s' if others != 1 else ''} of this file. "
                "A kernel defined once at module scope can share the file's module."
            )
            fix = _drop_unique_fix(dec, ctx)
            ctx.report(dec.decorator, message, fixes=[fix] if fix else [])


def _is_stable(func: nodes.FunctionDef) -> bool:
    """Defined once per import: module scope (or a module-level class), no loop around it."""
    current = func.parent
    while current is not None and not isinstance(current, nodes.Module):
        if isinstance(current, (nodes.FunctionDef, nodes.Lambda, nodes.For, nodes.While, nodes.ComprehensionScope)):
            return False
        current = current.parent
    return True


def _drop_unique_fix(dec: KernelDecorator, ctx: FileContext):
    call = dec.call
    assert call is not None
    keyword = next((kw for kw in call.keywords or [] if kw.arg == "module"), None)
    if keyword is None or keyword.lineno is None:
        return None
    args: list[nodes.NodeNG] = [*call.args, *(call.keywords or [])]
    args.sort(key=lambda a: (a.lineno or 0, a.col_offset or 0))
    if len(args) == 1:
        edit = ctx.replace_node(call, ctx.source_of(call.func))
    else:
        index = next(i for i, a in enumerate(args) if a is keyword)
        kw_range = ctx.node_range(keyword)
        if index + 1 < len(args):
            nxt = ctx.node_range(args[index + 1])
            edit = TextEdit(Range(kw_range.start, nxt.start), "")
        else:
            prev = ctx.node_range(args[index - 1])
            edit = TextEdit(Range(prev.end, kw_range.end), "")
    return ctx.fix('Remove `module="unique"`', edit, safe=False)
