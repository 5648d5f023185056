"""WCT011 parallel-cpu-load."""

from __future__ import annotations

import ast

from warp_ct.analyzer import syntax
from warp_ct.analyzer.context import FileContext
from warp_ct.analyzer.model import Applicability, Severity
from warp_ct.analyzer.program import UNRESOLVED
from warp_ct.analyzer.rules.base import Rule
from warp_ct.analyzer.rules.wct008_cache_destroyed import assigned_warp_name, is_test_harness

_UNKNOWN = object()


class ParallelCpuLoad(Rule):
    code = "WCT011"
    name = "parallel-cpu-load"
    severity = Severity.WARNING
    summary = "`force_load`/`load_module` with several worker threads on devices that include the CPU"
    fix_applicability = Applicability.UNSAFE
    triggers = (r"max_workers",)
    docs = '''
    ## What it does
    Flags `wp.force_load(...)` and `wp.load_module(..., recursive=True)` calls that load
    several modules with `max_workers` greater than 1 (or a value computed at run time)
    on devices that include the CPU: no `device` (all devices, the CPU among them),
    `device="cpu"`, or a list containing `"cpu"`. A `wp.config.load_module_max_workers`
    set above 1 (or to `None`, "let Warp choose") in the same file counts for calls that
    do not pass `max_workers`.

    ## Why it costs compile time
    Before Warp 1.17, concurrent first loads of CPU modules raced with each other and
    could fail. Since then they are safe, but each worker thread builds its own
    precompiled header for the CPU compiler, so on a machine with few cores parallel CPU
    loading is slower than loading one module after the other, which shares one header.
    GPU modules do profit from parallel loading.

    ## Example
    ```python
    import warp as wp

    import my_kernels  # noqa: F401  (defines the kernels)

    wp.force_load(max_workers=4)  # WCT011
    wp.force_load(device="cpu", max_workers=8)  # WCT011
    ```

    ## Use instead
    Load CPU modules serially and keep the workers for the GPU:
    ```python
    import warp as wp

    import my_kernels  # noqa: F401

    wp.force_load(device="cuda:0", max_workers=4)
    wp.force_load(device="cpu", max_workers=0)
    ```

    ## When not to apply
    On a machine with many cores and many CPU modules, parallel loading can still win on
    Warp 1.17 and newer: measure a cold start both ways. Tests of parallel loading itself
    (test code) are reported only as information. Loading a single module (no
    `recursive=True`) never runs in parallel and is not reported:
    ```python
    import warp as wp

    import my_kernels

    wp.load_module(my_kernels, max_workers=4)
    ```
    '''

    def visit_module(self, node: ast.Module, ctx: FileContext) -> None:
        default = 0
        for assign in syntax.nodes_of_class(node, ast.Assign):
            for target in assign.targets:
                if assigned_warp_name(target, ctx) == "warp.config.load_module_max_workers":
                    value = ctx.const_value(assign.value, _UNKNOWN)
                    default = value if value is not _UNKNOWN else None
        ctx.state[self.code] = default

    def visit_call(self, node: ast.Call, ctx: FileContext) -> None:
        name = ctx.call_name(node)
        if name not in ("warp.force_load", "warp.load_module"):
            return
        if any(kw.arg is None for kw in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
            return  # **kwargs / *args: cannot tell
        if name == "warp.force_load":
            device = ctx.keyword(node, "device", 0)
            modules = ctx.keyword(node, "modules", 1)
            if isinstance(modules, (ast.List, ast.Tuple)) and len(modules.elts) <= 1:
                return  # one module: Warp loads it without a thread pool
            workers_node = ctx.keyword(node, "max_workers", 3)
        else:
            device = ctx.keyword(node, "device", 1)
            recursive = ctx.keyword(node, "recursive", 2)
            if recursive is None or ctx.const_value(recursive, True) is False:
                return  # a single module
            workers_node = ctx.keyword(node, "max_workers", 4)
        if not _includes_cpu(device, ctx):
            return
        if workers_node is None or (isinstance(workers_node, ast.Constant) and workers_node.value is None):
            workers = ctx.state.get(self.code, 0)
            origin = "`wp.config.load_module_max_workers`"
            if workers == 0 or (isinstance(workers, int) and workers <= 1):
                return
            if workers is None:
                workers = _UNKNOWN  # "Warp decides": up to 4 threads
        else:
            workers = ctx.const_value(workers_node, _UNKNOWN)
            origin = "`max_workers`"
            if workers is not _UNKNOWN and (not isinstance(workers, int) or workers <= 1):
                return
        count = "several worker threads" if workers is _UNKNOWN else f"{workers} worker threads"
        if ctx.version_at_most(1, 16):
            message = (
                f"{origin} loads modules with {count} on devices that include the CPU: before Warp 1.17 "
                "concurrent CPU module loads race and can fail; load CPU modules serially (max_workers=0)"
            )
            severity = Severity.ERROR
        else:
            message = (
                f"{origin} loads modules with {count} on devices that include the CPU: each worker builds its own "
                "precompiled header, so CPU loading is usually slower than serial; load CPU modules serially "
                "(max_workers=0) and measure"
            )
            severity = None
        fixes = []
        if workers_node is not None and not (isinstance(workers_node, ast.Constant) and workers_node.value is None):
            fixes.append(ctx.fix("Load serially (`max_workers=0`)", ctx.replace_node(workers_node, "0"), safe=False))
        if is_test_harness(ctx.project.path_in_project(ctx.path)):
            # tests of parallel loading do this on purpose
            message += " (test code: reported as information)"
            severity, fixes = Severity.INFO, []
        ctx.report(workers_node if workers_node is not None else node, message, fixes=fixes, severity=severity)


def _includes_cpu(device: ast.expr | None, ctx: FileContext) -> bool:
    """True only when the device argument provably includes the CPU."""
    if device is None:
        return True  # all devices
    if isinstance(device, ast.Constant):
        return device.value is None or (isinstance(device.value, str) and device.value.startswith("cpu"))
    if isinstance(device, (ast.List, ast.Tuple)):
        return any(isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value.startswith("cpu") for e in device.elts)
    if isinstance(device, ast.Call) and ctx.call_name(device) == "warp.get_device":
        arg = ctx.keyword(device, "ident", 0)
        return isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.startswith("cpu")
    if isinstance(device, ast.Name):  # a parameter or a variable: what the model says it holds
        return any(v is None or isinstance(v, str) and v.startswith("cpu") for v in _device_values(device, ctx))
    return False


def _device_values(name: ast.Name, ctx: FileContext) -> list:
    """The values a device name can have at this call, through parameters' call sites and
    defaults (unknown ones left out)."""
    launch = next((l for l in ctx.facts.launches if l.span[0] <= name.lineno <= l.span[2] and l.device is not None), None)
    if launch is None or launch.device.kind not in ("param", "local", "name"):
        return []
    return [v for v in ctx.program.resolve(ctx.module_name, launch.function, launch.device) if v is not UNRESOLVED]

