"""WCT010 unused-backward.

Decided per Warp module (one Python file that defines kernels), from the whole project's
summaries: which kernels each file launches, which it differentiates (launched inside a
``wp.Tape`` or with ``adjoint=True``), and who turns backward code off or on.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from astroid import nodes

from warp_ct.analyzer.context import FileContext
from warp_ct.analyzer.model import Applicability, Severity
from warp_ct.analyzer.rules.base import Rule
from warp_ct.analyzer.rules.wct013_unique_ignores_module_options import bare_module_option_calls, dict_items

if TYPE_CHECKING:
    from warp_ct.analyzer.project import FileSummary, Project

_LAUNCH_RE = re.compile(r"\blaunch(?:_tiled)?\s*\(\s*(?:kernel\s*=\s*)?([A-Za-z_][\w.]*)")
_DIFF_HINT_RE = re.compile(
    r"\bTape\b|adjoint\s*=|requires_grad\s*=\s*True|\.backward\s*\(|adj_inputs\s*=|gradcheck|jacobian|"
    r"torch\.autograd|autograd\.Function|jax\.(?:grad|vjp|value_and_grad)|\bvjp\b|func_grad|enable_backward"
)
# Calls inside a ``with wp.Tape():`` body that cannot launch project kernels.
_HARMLESS_CALLS = {
    "print", "len", "range", "float", "int", "zip", "enumerate", "min", "max", "abs", "sum", "list", "tuple",
    "dict", "isinstance", "str", "numpy", "zero_", "fill_", "zeros", "zeros_like", "empty", "empty_like",
    "ones", "full", "array", "from_numpy", "synchronize", "ScopedTimer", "assign", "copy", "clone", "append",
}  # fmt: skip


@dataclass
class BackwardFacts:
    """What one file says about differentiation and backward options."""

    launched: set[str] = field(default_factory=set)  # kernel names launched anywhere
    differentiated: set[str] = field(default_factory=set)  # kernel names launched under a tape / adjoint
    opaque: bool = False  # differentiates through calls we cannot follow
    self_backward: bool | None = None  # bare set_module_options enable_backward literal
    self_backward_unknown: bool = False  # bare set_module_options with a non-literal dict
    by_name: dict[str, bool | None] = field(default_factory=dict)  # module name -> enable_backward set elsewhere
    global_off: bool = False  # wp.config.enable_backward = False
    kernels_off: set[str] = field(default_factory=set)  # @wp.kernel(enable_backward=False)


def file_facts(text: str) -> BackwardFacts:
    facts = BackwardFacts()
    facts.launched = {m.group(1).rsplit(".", 1)[-1] for m in _LAUNCH_RE.finditer(text)}
    if not _DIFF_HINT_RE.search(text):
        return facts
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        facts.opaque = True
        return facts
    _Collector(facts).run(tree)
    return facts


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _const_bool(node: ast.AST | None) -> bool | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return node.value
    return None


def _kw(call: ast.Call, name: str, pos: int | None = None) -> ast.AST | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    if pos is not None and len(call.args) > pos:
        return call.args[pos]
    return None


def _dict_bool(node: ast.AST | None, key: str) -> tuple[bool, bool | None]:
    """(is a literal dict, value of ``key`` in it if a bool literal)."""
    if not isinstance(node, ast.Dict) or any(k is None for k in node.keys):
        return False, None
    for k, v in zip(node.keys, node.values):
        if isinstance(k, ast.Constant) and k.value == key:
            return True, _const_bool(v)
    return True, None


class _Collector:
    """Syntax-only pass (``ast``) over a file that mentions differentiation."""

    def __init__(self, facts: BackwardFacts) -> None:
        self.facts = facts
        self.tapes: set[str] = set()
        self.tape_bodies = 0

    def run(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call):
                callee = _dotted(node.value.func) or ""
                if callee.endswith("Tape"):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for t in targets:
                        if (d := _dotted(t)) is not None:
                            self.tapes.add(d)
            self._options(node)
        for node in ast.walk(tree):
            if isinstance(node, (ast.With, ast.AsyncWith)) and any(self._is_tape(i.context_expr) for i in node.items):
                self.tape_bodies += 1
                self._tape_body(node.body)
            elif isinstance(node, ast.Call):
                callee = (_dotted(node.func) or "").rsplit(".", 1)[-1]
                if callee in ("launch", "launch_tiled") and _const_bool(_kw(node, "adjoint")) is not False and _kw(
                    node, "adjoint"
                ) is not None:
                    self._differentiate(_kw(node, "kernel", 0))
                elif callee in ("gradcheck", "gradcheck_tape", "jacobian", "jacobian_fd", "jvp", "vjp", "grad",
                                "value_and_grad", "Function"):  # fmt: skip
                    self.facts.opaque = True
        text_hints = self.tape_bodies == 0 and not self.facts.differentiated
        if text_hints and self._mentions_differentiation(tree):
            self.facts.opaque = True  # gradients are requested, but through code we do not follow

    def _mentions_differentiation(self, tree: ast.Module) -> bool:
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg in ("requires_grad", "adj_inputs", "adj_outputs"):
                if _const_bool(node.value) is not False:
                    return True
            if isinstance(node, ast.Attribute) and node.attr in ("backward", "Tape", "autograd"):
                return True
            if isinstance(node, ast.Name) and node.id == "Tape":
                return True
        return False

    def _is_tape(self, expr: ast.AST) -> bool:
        if isinstance(expr, ast.Call):
            return (_dotted(expr.func) or "").endswith("Tape")
        name = _dotted(expr)
        return name is not None and (name in self.tapes or "tape" in name.lower())

    def _tape_body(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            for node in ast.walk(stmt):
                if not isinstance(node, ast.Call):
                    continue
                callee = _dotted(node.func)
                last = (callee or "").rsplit(".", 1)[-1]
                if last in ("launch", "launch_tiled"):
                    self._differentiate(_kw(node, "kernel", 0))
                elif callee is None or last not in _HARMLESS_CALLS:
                    self.facts.opaque = True

    def _differentiate(self, kernel: ast.AST | None) -> None:
        name = _dotted(kernel) if kernel is not None else None
        if name is None:
            self.facts.opaque = True  # e.g. ``kernels[i]``: cannot tell which
            return
        self.facts.differentiated.add(name.rsplit(".", 1)[-1])
        if "." in name and name.split(".")[0] in ("self", "cls"):
            self.facts.opaque = True

    def _options(self, node: ast.AST) -> None:
        facts = self.facts
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if (_dotted(t) or "").endswith("config.enable_backward") and _const_bool(node.value) is False:
                    facts.global_off = True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for dec in node.decorator_list:
                if isinstance(dec, ast.Call) and (_dotted(dec.func) or "").endswith("kernel"):
                    if _const_bool(_kw(dec, "enable_backward")) is False:
                        facts.kernels_off.add(node.name)
                    is_dict, value = _dict_bool(_kw(dec, "module_options"), "enable_backward")
                    if value is False:
                        facts.kernels_off.add(node.name)
        if not isinstance(node, ast.Call):
            return
        callee = _dotted(node.func) or ""
        if callee.endswith("set_module_options"):
            options = _kw(node, "options", 0)
            target = _kw(node, "module", 1)
            is_dict, value = _dict_bool(options, "enable_backward")
            if target is None or (isinstance(target, ast.Constant) and target.value is None) or (
                isinstance(target, ast.Name) and target.id == "__name__"
            ):
                if not is_dict:
                    facts.self_backward_unknown = True
                elif value is not None:
                    facts.self_backward = value
                elif any(isinstance(k, ast.Constant) and k.value == "enable_backward" for k in options.keys):
                    facts.self_backward_unknown = True
            else:
                name = _module_target(target)
                if name is not None and (not is_dict or value is not None or "enable_backward" in ast.unparse(options)):
                    facts.by_name[name] = value
        elif callee.endswith("options.update") and isinstance(node.func, ast.Attribute):
            # wp.get_module("pkg.mod").options.update({...})
            owner = node.func.value.value if isinstance(node.func.value, ast.Attribute) else None
            if isinstance(owner, ast.Call) and (_dotted(owner.func) or "").endswith("get_module") and owner.args:
                name = _module_target(owner.args[0])
                is_dict, value = _dict_bool(node.args[0] if node.args else None, "enable_backward")
                if name is not None and (not is_dict or value is not None):
                    facts.by_name[name] = value


def _module_target(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Call) and (_dotted(node.func) or "").endswith("get_module") and node.args:
        return _module_target(node.args[0])
    return None


# ---------------------------------------------------------------------- project decision


@dataclass
class _Verdict:
    differentiated: set[str]  # module names something differentiates (or may)
    global_off: bool
    configured: dict[str, bool | None]  # module name -> enable_backward set from another file


def _facts(summary: "FileSummary") -> BackwardFacts:
    facts = summary.extra.get(UnusedBackward.code)
    if not isinstance(facts, BackwardFacts):
        facts = file_facts(summary.text)
        summary.extra[UnusedBackward.code] = facts
    return facts


def _reachable(project: "Project", summary: "FileSummary") -> list["FileSummary"]:
    seen: dict[str, FileSummary] = {summary.module_name: summary}
    stack = [summary]
    while stack:
        current = stack.pop()
        for dep in project.imported_project_modules(current):
            if dep.module_name not in seen:
                seen[dep.module_name] = dep
                stack.append(dep)
    return list(seen.values())


_CACHE: dict[int, tuple[tuple, _Verdict]] = {}


def project_verdict(project: "Project") -> _Verdict:
    key = tuple((path, id(s)) for path, s in project.files.items())
    cached = _CACHE.get(id(project))
    if cached is not None and cached[0] == key:
        return cached[1]
    differentiated: set[str] = set()
    configured: dict[str, bool | None] = {}
    global_off = False
    for summary in project.files.values():
        facts = _facts(summary)
        global_off = global_off or facts.global_off
        for name, value in facts.by_name.items():
            configured[name] = value if configured.get(name, value) == value else None
        if not facts.opaque and not facts.differentiated:
            continue
        reach = _reachable(project, summary)
        if facts.opaque:
            differentiated.update(s.module_name for s in reach)
            continue
        for dep in reach:
            if facts.differentiated & set(dep.kernel_names):
                differentiated.add(dep.module_name)
    verdict = _Verdict(differentiated, global_off, configured)
    _CACHE[id(project)] = (key, verdict)
    return verdict


def _consumers(project: "Project", summary: "FileSummary") -> list["FileSummary"]:
    """Project files that launch a kernel of ``summary``'s module by name."""
    names = set(summary.kernel_names)
    out = []
    for other in project.files.values():
        launched = _facts(other).launched & names
        if not launched:
            continue
        if other is summary or any(dep.module_name == summary.module_name for dep in project.imported_project_modules(other)):
            out.append(other)
    return out


class UnusedBackward(Rule):
    code = "WCT010"
    name = "unused-backward"
    severity = Severity.WARNING
    summary = "Backward (adjoint) code is compiled for a module whose kernels nothing differentiates"
    fix_applicability = Applicability.UNSAFE
    triggers = (r"@[ \t]*(?:[\w.]+\.)?kernel\b",)
    docs = '''
    ## What it does
    Decides, per Warp module (one Python file that defines kernels), whether anything
    in the linted project differentiates its kernels: launches them inside a
    `wp.Tape()`, launches them with `adjoint=True`, or calls into code that may (a tape
    around a function call, `requires_grad=True`, torch/JAX autograd). It reports a
    module whose kernels the project launches, but never differentiates, and that still
    generates backward code (the default), and a module that sets
    `enable_backward=True` explicitly although nothing differentiates it.

    A tape over one module says nothing about another: a training script that records
    `physics.py` on a tape but only renders with `render.py` differentiates the first,
    not the second.

    ## Why it costs compile time
    With backward enabled (Warp's default) every kernel is compiled twice over: the
    forward code and its adjoint, which is often larger than the forward code. For a
    module that is only ever run forward, that half of the build is wasted, on every
    cold start and for every block_dim and device the module is built for.

    ## Example
    ```python
    # file: sim/physics.py
    import warp as wp

    @wp.kernel
    def integrate(x: wp.array(dtype=float), v: wp.array(dtype=float), dt: float):
        i = wp.tid()
        x[i] = x[i] + v[i] * dt
    # file: sim/render.py
    import warp as wp

    @wp.kernel  # WCT010
    def to_pixels(x: wp.array(dtype=float), img: wp.array(dtype=float)):
        i = wp.tid()
        img[i] = wp.clamp(x[i], 0.0, 1.0)
    # file: sim/__init__.py
    # file: sim/train.py
    import warp as wp

    from sim.physics import integrate
    from sim.render import to_pixels

    def train(x, v, img, loss):
        tape = wp.Tape()
        with tape:
            wp.launch(integrate, dim=x.shape, inputs=[x, v, 0.01])
        tape.backward(loss)
        wp.launch(to_pixels, dim=x.shape, inputs=[x, img])
    ```

    ## Use instead
    Turn backward code off for the forward-only module, in that module:
    ```python
    # file: sim/render.py
    import warp as wp

    wp.set_module_options({"enable_backward": False})

    @wp.kernel
    def to_pixels(x: wp.array(dtype=float), img: wp.array(dtype=float)):
        i = wp.tid()
        img[i] = wp.clamp(x[i], 0.0, 1.0)
    # file: sim/__init__.py
    # file: sim/main.py
    import warp as wp

    from sim.render import to_pixels

    def show(x, img):
        wp.launch(to_pixels, dim=x.shape, inputs=[x, img])
    ```
    A program that never differentiates anything can instead set
    `wp.config.enable_backward = False` in its entry point, before importing any kernel
    module. Never set it globally inside a library: it would also switch off modules
    your users differentiate.

    ## When not to apply
    A library whose kernels nothing in the linted project launches is not reported:
    callers outside it may differentiate them. Likewise when the tape records calls the
    linter cannot follow into, the modules those calls can reach count as
    differentiated:
    ```python
    # file: lib/ops.py
    import warp as wp

    @wp.kernel
    def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = x[i] * x[i]

    def apply(x, y):
        wp.launch(square, dim=x.shape, inputs=[x, y])
    # file: lib/__init__.py
    # file: lib/fit.py
    import warp as wp

    from lib import ops

    def fit(x, y, loss):
        tape = wp.Tape()
        with tape:
            ops.apply(x, y)
        tape.backward(loss)
    ```
    If the module's kernels are differentiated by code outside the project, keep the
    default and suppress with `# noqa: WCT010`.
    '''

    def summarize(self, summary: "FileSummary") -> BackwardFacts:
        return file_facts(summary.text)

    def leave_module(self, node: nodes.Module, ctx: FileContext) -> None:
        project = ctx.project
        summary = project.files.get(ctx.path)
        if summary is None or not summary.kernel_names:
            return
        kernels = [d for d in ctx.kernel_decorators() if not d.is_unique and "module" not in d.keywords]
        if not kernels:
            return
        verdict = project_verdict(project)
        if ctx.module_name in verdict.differentiated:
            return
        facts = _facts(summary)
        if facts.self_backward_unknown:
            return
        configured = verdict.configured.get(ctx.module_name, "unset")
        if configured is None or configured is False:
            return  # set (or possibly set) from elsewhere by name
        explicit = self._explicit_true(ctx, kernels)
        if explicit is not None:
            node_, fix = explicit
            ctx.report(
                node_,
                f"backward code is turned on explicitly for module `{ctx.module_name}`, but nothing in this "
                "project differentiates its kernels (no wp.Tape or adjoint launch reaches them): every build "
                "compiles adjoint code nobody uses",
                fixes=[fix] if fix else [],
                severity=Severity.INFO if not _consumers(project, summary) else None,
            )
            return
        if facts.self_backward is False or configured is True or verdict.global_off:
            return
        live = [d for d in kernels if d.keyword_const("enable_backward") is not False and d.funcdef.name not in facts.kernels_off]
        if not live:
            return
        consumers = _consumers(project, summary)
        if not consumers:
            return  # nobody in view launches these kernels: callers elsewhere may differentiate them
        where = ", ".join(sorted({c.module_name for c in consumers})[:3])
        fix = _insert_option_fix(ctx, node)
        ctx.report(
            live[0].decorator,
            f"module `{ctx.module_name}` compiles backward (adjoint) code for its {len(live)} kernel(s), but "
            f"nothing in this project differentiates them (launched from {where}, never under a wp.Tape or with "
            "adjoint=True): turn it off for this module with "
            "`wp.set_module_options({\"enable_backward\": False})`",
            fixes=[fix] if fix else [],
        )

    def _explicit_true(self, ctx: FileContext, kernels):
        for call in bare_module_option_calls(ctx):
            for key, value in dict_items(ctx.keyword(call, "options", 0)) or []:
                if key.value == "enable_backward" and isinstance(value, nodes.Const) and value.value is True:
                    return call, ctx.fix("Turn backward code off for this module", ctx.replace_node(value, "False"),
                                         safe=False)  # fmt: skip
        for dec in kernels:
            value = dec.keywords.get("enable_backward")
            if isinstance(value, nodes.Const) and value.value is True:
                return dec.decorator, ctx.fix("Turn backward code off for this kernel", ctx.replace_node(value, "False"),
                                              safe=False)  # fmt: skip
        return None


def _insert_option_fix(ctx: FileContext, module: nodes.Module):
    alias = None
    for stmt in module.body:
        if isinstance(stmt, nodes.Import):
            for name, asname in stmt.names:
                if name == "warp":
                    alias = asname or "warp"
    if alias is None:
        return None
    last_import = None
    for stmt in module.body:
        if isinstance(stmt, (nodes.FunctionDef, nodes.ClassDef)):
            break
        if isinstance(stmt, (nodes.Import, nodes.ImportFrom)):
            last_import = stmt
    if last_import is None:
        return None
    line = ctx.node_range(last_import).end.line + 1
    text = f'\n{alias}.set_module_options({{"enable_backward": False}})\n'
    return ctx.fix("Turn backward code off for this module", ctx.insert_at(line, 0, text), safe=False)
