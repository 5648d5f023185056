"""WCT008 cache-destroyed.

Also home of small helpers other rules share: "is this test code", "does this look
deliberate", "is this setting put back in the same function", the Warp name of an
assignment target, and "remove this statement" fixes.
"""

from __future__ import annotations

import ast
import re
from pathlib import PurePath
from typing import TYPE_CHECKING

from warp_ct.analyzer import syntax
from warp_ct.analyzer.context import FileContext, imported_qname
from warp_ct.analyzer.model import Applicability, Fix, Severity
from warp_ct.analyzer.program import FunctionRef
from warp_ct.analyzer.query import where
from warp_ct.analyzer.rules.base import Rule

if TYPE_CHECKING:
    from warp_ct.analyzer.facts import CallFact, Value
    from warp_ct.analyzer.program import Program
    from warp_ct.analyzer.project import FileSummary, Project

# The config options whose change the check reads (``"*"``: ``setattr`` with a computed name).
_CACHE_OPTIONS = frozenset({"cache_kernels", "kernel_cache_dir", "*"})

# ---------------------------------------------------------------------- shared helpers


def is_test_harness(path: str) -> bool:
    """Test code: ``test_*.py``, ``*_test.py``, ``unittest_*.py`` runners, ``conftest.py``, or a
    file under a tests folder."""
    p = PurePath(path)
    name = p.name
    if name.startswith(("test_", "unittest_")) or name.endswith("_test.py") or name == "conftest.py":
        return True
    return any(part in ("tests", "test", "testing") for part in p.parts[:-1])


_MAINTENANCE_WORD = r"(?:clear|clean|reset|purge|wipe|flush|invalidat|nuke|fresh|cold|rebuild|recompil)"
_MAINTENANCE_NAME_RE = re.compile(rf"{_MAINTENANCE_WORD}|(?:^|_)(?:rm|delete|remove)_?\w*cache", re.IGNORECASE)
_CONDITION_RE = re.compile(rf"{_MAINTENANCE_WORD}|cache", re.IGNORECASE)
# ``if cache_dir:`` / ``if args.cache_path is not None:``: a path was given, not a choice to
# rebuild (``if args.no_cache:`` / ``if fresh_cache:`` are such choices).
_PATH_IS_SET_RE = re.compile(r"(?:not\s+)?[\w.]*(?:dir|path|root|folder|location)\w*(?:\s+is(?:\s+not)?\s+None)?", re.IGNORECASE)
# A comment that gives a reason (not one that only names the action, like "# clear cache").
_EXPLAINING_COMMENT_RE = re.compile(
    r"\bso (?:that|we|the|every|each|it)\b|\bto (?:measure|test|force|ensure|make sure|start|exercise|avoid|isolate)\b"
    r"|because|deliberate|intentional|on purpose|measur|benchmark|from scratch|\bfresh\b|ensure|make sure",
    re.IGNORECASE,
)


# warp-ct's own fixture annotations ("expect WCT008: ...", "silent: WCT008 - ...") describe
# the finding, they do not explain the code.
_ANNOTATION_RE = re.compile(r"(?:expect|silent)\b[: ]+(?:WCT\d{3})?", re.IGNORECASE)


def deliberate_reason(node: ast.AST, ctx: FileContext, conditions_only: bool = False) -> str | None:
    """Why a cache-hostile statement looks like a deliberate maintenance path, if it does:
    an enclosing function named for it, a guarding condition that says so, or a comment
    (``conditions_only``: the guard alone)."""
    child: ast.AST = node
    for parent in syntax.ancestors(node):
        if isinstance(parent, syntax.FUNCTION_TYPES) and not conditions_only:
            name = parent.name
            if ("cache" in name.lower() and _MAINTENANCE_NAME_RE.search(name) or re.fullmatch(
                rf"_*{_MAINTENANCE_WORD}\w*", name, re.IGNORECASE
            )) and not _registered_at_exit(parent, ctx):  # fmt: skip
                return f"it runs inside `{name}()`"
        if isinstance(parent, (ast.If, ast.IfExp)) and child is not parent.test:
            test = ctx.source_of(parent.test)
            if _CONDITION_RE.search(test) and not _PATH_IS_SET_RE.fullmatch(test.strip()):
                return f"it only runs when `{test.strip()}`"
        child = parent
    if not conditions_only and _explaining_comment(node, ctx):
        return "a comment explains it"
    return None


def _registered_at_exit(function: ast.FunctionDef | ast.AsyncFunctionDef, ctx: FileContext) -> bool:
    """``atexit.register(_cleanup, ...)`` in this file: a ``_cleanup()`` that runs at the end of
    every run, whatever its name says, is no maintenance path someone opts into."""
    for call in syntax.nodes_of_class(ctx.tree, ast.Call):
        if imported_qname(call.func) == "atexit.register" and call.args:
            target = call.args[0]
            if isinstance(target, ast.Name) and target.id == function.name:
                return True
    for decorator in function.decorator_list:  # ``@atexit.register``
        if imported_qname(decorator) == "atexit.register":
            return True
    return False


def _explaining_comment(node: ast.AST, ctx: FileContext) -> bool:
    first = (node.lineno or 1) - 1  # type: ignore[attr-defined]
    last = (node.end_lineno or node.lineno or 1) - 1  # type: ignore[attr-defined]
    comments = []
    trailing = ctx.index.line_text(last)
    if "#" in trailing:
        comments.append(trailing.split("#", 1)[1])
    trailing_count = len(comments)
    # comment lines in the paragraph the statement belongs to (up to a blank line)
    own_indent = len(ctx.line_indent(first))
    line = first - 1
    while line >= 0 and first - line <= 8:
        raw = ctx.index.line_text(line)
        text = raw.strip()
        if not text or len(ctx.line_indent(line)) < own_indent:
            break  # a blank line or the start of the enclosing block ends the paragraph
        if text.startswith("#"):
            if _ANNOTATION_RE.match(text[1:].strip()):
                # The lines from here down are a test annotation about warp-ct's finding.
                del comments[trailing_count:]
                break
            comments.append(text[1:])
        line -= 1
    for comment in comments:
        stripped = comment.strip()
        if re.match(r"(?i)(noqa|warp-ct:|type:|fmt:|pragma)", stripped):
            continue
        if _EXPLAINING_COMMENT_RE.search(stripped):
            return True
    return False


def _block_of(parent: ast.AST, stmt: ast.stmt) -> list[ast.stmt]:
    for attr in ("body", "orelse", "finalbody"):
        block = getattr(parent, attr, None)
        if isinstance(block, list) and any(s is stmt for s in block):
            return block
    return []


def removal_fix(ctx: FileContext, stmt: ast.stmt, title: str) -> Fix | None:
    """Delete a standalone statement (an expression statement or a one-target assignment)
    on its own lines; put ``pass`` in its place when it was the block's only statement."""
    if not isinstance(stmt, (ast.Expr, ast.Assign)):
        return None
    if isinstance(stmt, ast.Assign) and len(stmt.targets) != 1:
        return None
    parent = getattr(stmt, "parent", None)
    block = _block_of(parent, stmt) if parent is not None else []
    if not block:
        return None
    rng = ctx.node_range(stmt)
    first, last = rng.start.line, rng.end.line
    before = ctx.index.line_text(first)[: rng.start.character]
    after = ctx.index.line_text(last)[rng.end.character :].strip()
    if before.strip() or (after and not after.startswith("#")):
        return None  # shares its line with other code (``a; b`` or ``if x: b``)
    if len(block) == 1 and not isinstance(parent, ast.Module):
        edit = ctx.delete_lines(first, last)
        edit = edit.__class__(edit.range, f"{before}pass\n")
        return ctx.fix(title + " (leaves `pass`)", edit, safe=False)
    return ctx.fix(title, ctx.delete_lines(first, last), safe=False)


def assigned_warp_name(target: ast.expr, ctx: FileContext) -> str | None:
    """``ctx.warp_name`` for an assignment target such as ``wp.config.mode``."""
    if isinstance(target, ast.Attribute):
        return ctx.warp_name(target)
    return None


def restored_in_scope(node: ast.Assign, target: ast.Attribute, ctx: FileContext) -> bool:
    """``old = wp.config.x; wp.config.x = v; ...; wp.config.x = old``: a scoped override.

    Any other assignment of the same setting in the same scope counts as putting it
    back, except one of the constant the override compares as (see ``_compared_value``)."""
    scope = syntax.scope_of(node)
    if isinstance(scope, ast.Module):
        return False
    wanted = assigned_warp_name(target, ctx)
    assigned = _compared_value(node.value)
    for other in syntax.nodes_of_class(scope, ast.Assign):
        if other is node:
            continue
        for t in other.targets:
            if isinstance(t, ast.Attribute) and assigned_warp_name(t, ctx) == wanted:
                if not (isinstance(other.value, ast.Constant) and other.value.value == assigned):
                    return True
    return False


def _compared_value(value: ast.expr) -> object:
    """What an override's value is compared with in ``restored_in_scope``: a constant's
    value (setting the same constant again is no restore); None for a name, call,
    attribute and most other expressions (so ``= None`` elsewhere is no restore either);
    the inner expression node, equal to no constant, for a subscript, walrus, ``await``,
    ``yield`` or dict comprehension."""
    if isinstance(value, ast.Constant):
        return value.value
    if isinstance(value, ast.Attribute):
        return None
    return getattr(value, "value", None)


def walk_values(node: ast.AST, ctx: FileContext, depth: int = 0):
    """``node`` and its sub-expressions, following simple local names to what they were
    assigned (``d = tempfile.mkdtemp()``) or bound by ``with ... as d``."""
    if depth > 3:
        return
    for sub in syntax.nodes_of_class(node, ast.AST):
        yield sub
        if isinstance(sub, ast.Name):
            for value in _bound_values(sub):
                yield from walk_values(value, ctx, depth + 1)


def _bound_values(name: ast.Name) -> list[ast.expr]:
    _scope, bindings = syntax.lookup(name)
    out = _global_assignments(name)
    for binding in bindings:
        if not (isinstance(binding, ast.Name) and isinstance(binding.ctx, ast.Store)):
            continue
        parent = binding.parent  # type: ignore[attr-defined]
        if isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is not None:
            out.append(parent.value)
        elif isinstance(parent, ast.withitem) and parent.optional_vars is binding:
            out.append(parent.context_expr)
    return out


def _global_assignments(name: ast.Name) -> list[ast.expr]:
    """Values a function assigns to a name it declares ``global`` (``global _tmp; _tmp =
    tempfile.TemporaryDirectory()``), as seen by a use in that function."""
    functions = syntax.enclosing_functions(name)
    if not functions:
        return []
    function = functions[0]
    declared = any(isinstance(n, ast.Global) and name.id in n.names for n in ast.walk(function))
    if not declared:
        return []
    out = []
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name.id for t in node.targets):
            out.append(node.value)
    return out


# ---------------------------------------------------------------------- the rule

_TEMP_CALLS = {
    "tempfile.mkdtemp": "a temporary directory",
    "tempfile.TemporaryDirectory": "a temporary directory",
    "tempfile.mkstemp": "a temporary path",
    "tempfile.NamedTemporaryFile": "a temporary path",
    "time.time": "a path that changes every run (the current time)",
    "time.time_ns": "a path that changes every run (the current time)",
    "time.perf_counter": "a path that changes every run (a timer value)",
    "time.monotonic": "a path that changes every run (a timer value)",
    "time.strftime": "a path that changes every run (the current time)",
    "datetime.datetime.now": "a path that changes every run (the current time)",
    "datetime.datetime.utcnow": "a path that changes every run (the current time)",
    "datetime.datetime.today": "a path that changes every run (the current date)",
    "datetime.date.today": "a path that changes every run (the current date)",
    "uuid.uuid1": "a path that changes every run (a random id)",
    "uuid.uuid4": "a path that changes every run (a random id)",
    "os.getpid": "a path that changes every run (the process id)",
    "os.urandom": "a path that changes every run (random bytes)",
    "secrets.token_hex": "a path that changes every run (a random token)",
}


def _temporary_reason(value: ast.AST, ctx: FileContext) -> str | None:
    for sub in walk_values(value, ctx):
        if isinstance(sub, ast.Call):
            name = imported_qname(sub.func)
            if name is None and isinstance(sub.func, ast.Attribute):
                # datetime.now() with ``from datetime import datetime``
                inner = imported_qname(sub.func.value)
                name = f"{inner}.{sub.func.attr}" if inner else None
            if name in _TEMP_CALLS:
                return _TEMP_CALLS[name]
            if name and (name.startswith("random.") or name.startswith("secrets.")):
                return "a path that changes every run (a random value)"
    return None


def _temporary_from_callers(value: ast.AST, ctx: FileContext) -> str | None:
    """``wp.config.kernel_cache_dir = cache_dir`` where ``cache_dir`` is a parameter: what
    the callers pass, through the model (``setup(cfg, cache_dir=args.cache or scratch.name)``
    with ``scratch = tempfile.TemporaryDirectory()`` in another file)."""
    if not isinstance(value, ast.Name):
        return None
    functions = syntax.enclosing_functions(value)
    if not functions:
        return None
    line = functions[0].lineno
    fact = next((f for f in ctx.facts.functions.values() if f.span[0] == line and f.name == functions[0].name), None)
    if fact is None or value.id not in fact.params:
        return None
    found = _temporary_passed(ctx.program, FunctionRef(ctx.module_name, fact.qualname), value.id, 0)
    if found is None:
        return None
    reason, caller_module, call = found
    return f"{reason} (what the call at {where(caller_module, call.span, ctx.module_name)} passes for `{value.id}`)"


def _temporary_passed(program: Program, ref: FunctionRef, param: str, depth: int) -> tuple[str, str, CallFact] | None:
    for caller_module, caller_name, call, arg in program.arguments_for(ref, param):
        if arg is None:
            continue
        if arg.kind == "param" and caller_name is not None and depth < 3:
            found = _temporary_passed(program, FunctionRef(caller_module, caller_name), arg.data, depth + 1)
            if found is not None:
                return found
            continue
        facts = program.modules.get(caller_module)
        temporary_names = {n[4:] for n in facts.cache_dir_names if n.startswith("tmp:")} if facts is not None else set()
        reason = _temporary_call_in(arg, temporary_names, 0)
        if reason is not None:
            return reason, caller_module, call
    return None


def _temporary_call_in(value: Value, temporary_names: set[str], depth: int) -> str | None:
    """A call of ``_TEMP_CALLS`` in the value, or a name the caller's file binds to a
    temporary directory (``scratch.name`` after ``scratch = tempfile.TemporaryDirectory()``)."""
    if value.kind == "call" and value.data in _TEMP_CALLS:
        return _TEMP_CALLS[value.data]
    if value.kind in ("name", "local") and isinstance(value.data, str) and value.data.partition(".")[0] in temporary_names:
        return "a temporary directory"
    if depth > 6:
        return None
    for item in value.items:
        found = _temporary_call_in(item, temporary_names, depth + 1)
        if found is not None:
            return found
    return None


def _is_warp_cache_dir(value: ast.AST, ctx: FileContext, depth: int = 0) -> bool:
    """The expression IS the kernel cache root (``wp.config.kernel_cache_dir``, a name bound
    to it, ``$WARP_CACHE_PATH``), not a path below it such as a per-process build folder."""
    if depth > 3:
        return False
    if isinstance(value, ast.Attribute):
        return ctx.warp_name(value) in ("warp.config.kernel_cache_dir", "warp.build.kernel_cache_dir")
    if isinstance(value, ast.Subscript):  # os.environ["WARP_CACHE_PATH"]
        return isinstance(value.slice, ast.Constant) and value.slice.value == "WARP_CACHE_PATH"
    if isinstance(value, ast.Call):  # os.environ.get("WARP_CACHE_PATH") / os.getenv(...) / Path(cache_dir)
        args = value.args
        if args and isinstance(args[0], ast.Constant) and args[0].value == "WARP_CACHE_PATH":
            return True
        if imported_qname(value.func) in ("pathlib.Path", "os.path.abspath", "os.path.realpath", "os.fspath"):
            return len(args) == 1 and _is_warp_cache_dir(args[0], ctx, depth + 1)
        return False
    if isinstance(value, ast.Name):
        values = _bound_values(value)
        return len(values) == 1 and _is_warp_cache_dir(values[0], ctx, depth + 1)
    return False


def _holds_cache_dir(value: ast.AST, ctx: FileContext) -> bool:
    """A name (or ``self.x``) that this file also assigns to ``wp.config.kernel_cache_dir``:
    ``cache = ...; wp.config.kernel_cache_dir = cache; ...; shutil.rmtree(cache)``."""
    text = syntax.as_string(value)
    if not isinstance(value, (ast.Name, ast.Attribute)):
        return False
    return text in ctx.facts.cache_dir_names or (isinstance(value, ast.Attribute) and
                                                  f"{value.attr}" in ctx.facts.cache_dir_names)  # fmt: skip


def _may_be_cache_dir(value: "Value | None", names: set[str], depth: int = 0) -> bool:
    """The facts' side of ``_is_warp_cache_dir``/``_holds_cache_dir``: some name in the
    expression (or in what its locals were assigned) is the kernel cache directory, a name
    the file assigns to it, or ``WARP_CACHE_PATH``. None (a ``path=`` keyword): maybe."""
    if value is None or depth > 8:
        return True
    data = value.data
    if isinstance(data, str) and (data in names or data == "WARP_CACHE_PATH" or data.endswith("kernel_cache_dir")):
        return True
    return any(_may_be_cache_dir(item, names, depth + 1) for item in value.items)


def _disables(value: ast.AST | None) -> bool:
    """A CUDA_CACHE_DISABLE value that turns the driver cache off ("1", 1, True)."""
    if not isinstance(value, ast.Constant):
        return False
    v = value.value
    if isinstance(v, str):
        return v.strip() not in ("", "0", "false", "False", "no")
    return bool(v)


class CacheDestroyed(Rule):
    code = "WCT008"
    name = "cache-destroyed"
    severity = Severity.WARNING
    summary = "Kernel or driver caches are cleared, disabled or made per-run, so every run compiles from scratch"
    fix_applicability = Applicability.UNSAFE
    triggers = (
        r"clear_kernel_cache|clear_lto_cache|cache_kernels|kernel_cache_dir|CUDA_CACHE_DISABLE|WARP_CACHE_PATH",
    )
    docs = '''
    ## What it does
    Flags code that throws compiled Warp modules away or keeps them from being found
    again: `wp.clear_kernel_cache()`, `wp.clear_lto_cache()`,
    `wp.config.cache_kernels = False`, a `wp.config.kernel_cache_dir` that is a temporary
    directory or has a time stamp, process id or random id in its path,
    `shutil.rmtree()` of the kernel cache directory (also registered with `atexit`), and
    `CUDA_CACHE_DISABLE=1` (set in
    `os.environ`, with `os.putenv`, or in an environment dict for a child process).

    ## Why it costs compile time
    Warp compiles each module once and keeps the result in its kernel cache; the next
    run that builds the same module loads it in milliseconds instead of compiling for
    seconds. Clearing the cache, turning it off, or pointing it at a directory nobody
    will look in again makes every run pay the full cold compile. The clear functions
    delete the *shared* cache, so they also slow down every other Warp program on the
    machine. `CUDA_CACHE_DISABLE` does the same to the CUDA driver's own cache of
    PTX compiled for your GPU.

    ## Example
    ```python
    import tempfile

    import warp as wp

    wp.clear_kernel_cache()  # WCT008
    wp.config.kernel_cache_dir = tempfile.mkdtemp()  # WCT008

    @wp.kernel
    def scale(a: wp.array(dtype=float), s: float):
        i = wp.tid()
        a[i] = a[i] * s
    ```

    ```python
    import os
    import subprocess

    env = dict(os.environ, CUDA_CACHE_DISABLE="1")  # WCT008
    env["CUDA_CACHE_DISABLE"] = "1"  # WCT008
    subprocess.run(["python", "train.py"], env=env)  # train.py uses warp
    ```

    ## Use instead
    Leave the cache alone. To measure a cold start or keep a run isolated, give that
    process its own cache directory from outside instead of deleting the shared one:
    ```python
    import os
    import subprocess
    import tempfile

    import warp as wp

    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, WARP_CACHE_PATH=cache, CUDA_CACHE_PATH=cache)
        subprocess.run(["python", "train.py"], env=env)  # one cold Warp run, the shared cache untouched
    ```

    ## When not to apply
    A maintenance path that exists to clear the cache (a `clear_cache()` function, an
    `if args.clear_cache:` branch, or a line with a comment saying why) is reported only
    as information and never changed automatically.

    Test suites: Warp's own test runners clear the kernel cache on purpose so that the
    tests exercise compilation. In test code (`test_*.py`, `*_test.py`, `conftest.py`, or
    files under a `tests/` folder) clearing or disabling the cache is reported only as
    information, and a temporary `kernel_cache_dir` is not reported at all, since a
    private cache is the right way to isolate a test:
    ```python
    # file: tests/test_cache.py
    import tempfile

    import warp as wp

    def test_builds_from_scratch():
        saved = wp.config.kernel_cache_dir
        with tempfile.TemporaryDirectory() as cache:
            wp.config.kernel_cache_dir = cache
            try:
                wp.load_module("my_kernels", device="cpu")
            finally:
                wp.config.kernel_cache_dir = saved
    ```
    '''

    def needs_tree(self, summary: "FileSummary", project: "Project") -> bool:
        if "CUDA_CACHE_DISABLE" in summary.text:
            return True  # environment dicts and keywords: the tree check reads them
        facts = project.facts(summary)
        names = set(facts.cache_dir_names)
        if any(c.kind not in ("rmtree", "atexit_rmtree") or _may_be_cache_dir(c.target, names) for c in facts.caches):
            return True  # ``clear_*_cache()``, ``cache_kernels = False``, ``rmtree`` of what may be the cache
        if any(o.kind == "config" and not _CACHE_OPTIONS.isdisjoint(o.options) for o in facts.options):
            return True  # ``wp.config.cache_kernels = ...``, ``.kernel_cache_dir = ...``, ``setattr``
        # Names the facts cannot resolve (a config alias, Warp re-exported by a project module).
        return project.facts_may_miss_warp_names(summary)

    # ------------------------------------------------------------------ checks
    def visit_call(self, node: ast.Call, ctx: FileContext) -> None:
        name = ctx.call_name(node)
        if name and name.startswith("warp.") and name.rsplit(".", 1)[-1] in ("clear_kernel_cache", "clear_lto_cache"):
            what = name.rsplit(".", 1)[-1]
            pointed = _cache_dir_set_before(node, ctx) if what == "clear_kernel_cache" else None
            if pointed is not None:
                # ``wp.config.kernel_cache_dir = private`` first (a test runner's per-worker
                # folder): the clear deletes that folder, not the one every program shares.
                message = (
                    f"`clear_kernel_cache()` deletes the kernel cache that line {pointed} pointed "
                    "`wp.config.kernel_cache_dir` at: the next run that uses that folder compiles all of its "
                    "modules from scratch"
                )
            elif what == "clear_kernel_cache":
                message = (
                    "`clear_kernel_cache()` deletes Warp's shared kernel cache: the next run of every Warp "
                    "program on this machine compiles all of its modules from scratch"
                )
            else:
                message = (
                    "`clear_lto_cache()` deletes the cached link-time-optimized (MathDx) objects: the next run "
                    "builds them again"
                )
            self._report(node, ctx, message, "Remove the cache-clearing call")
            return
        qname = imported_qname(node.func)
        if qname == "atexit.register" and node.args and imported_qname(node.args[0]) == "shutil.rmtree":
            target = node.args[1] if len(node.args) > 1 else None
            if target is not None and (_is_warp_cache_dir(target, ctx) or _holds_cache_dir(target, ctx)):
                # Registered, it runs at the end of every run that gets here: only a guard
                # that opts into it makes it a maintenance path.
                self._report(
                    node, ctx,
                    "this deletes Warp's kernel cache directory when the program exits: the next run finds "
                    "nothing and compiles every module from scratch",
                    "Remove the exit-time deletion",
                    conditions_only=True,
                )  # fmt: skip
            return
        if qname == "shutil.rmtree":
            target = ctx.keyword(node, "path", 0)
            if target is not None and (_is_warp_cache_dir(target, ctx) or _holds_cache_dir(target, ctx)):
                self._report(
                    node, ctx,
                    "this deletes Warp's kernel cache directory: the next run compiles every module from scratch",
                    "Remove the cache deletion",
                )  # fmt: skip
        elif qname == "os.putenv":
            key, value = ctx.keyword(node, "key", 0), ctx.keyword(node, "value", 1)
            if isinstance(key, ast.Constant) and key.value == "CUDA_CACHE_DISABLE" and _disables(value):
                self._report_cuda(node, ctx)
        elif qname == "os.environ.setdefault":
            key, value = ctx.keyword(node, "key", 0), ctx.keyword(node, "default", 1)
            if isinstance(key, ast.Constant) and key.value == "CUDA_CACHE_DISABLE" and _disables(value):
                self._report_cuda(node, ctx)
        elif isinstance(node.func, ast.Name) and node.func.id == "dict" or qname in ("os.environ.update",):
            for kw in node.keywords:
                if kw.arg == "CUDA_CACHE_DISABLE" and _disables(kw.value):
                    self._report_cuda(kw, ctx)

    def visit_dict(self, node: ast.Dict, ctx: FileContext) -> None:
        for key, value in zip(node.keys, node.values):
            if isinstance(key, ast.Constant) and key.value == "CUDA_CACHE_DISABLE" and _disables(value):
                self._report_cuda(key, ctx)

    def visit_assign(self, node: ast.Assign, ctx: FileContext) -> None:
        for target in node.targets:
            if isinstance(target, ast.Subscript):
                key = target.slice
                if isinstance(key, ast.Constant) and key.value == "CUDA_CACHE_DISABLE" and _disables(node.value):
                    self._report_cuda(node, ctx)
                continue
            if not isinstance(target, ast.Attribute):
                continue
            name = assigned_warp_name(target, ctx)
            if name == "warp.config.cache_kernels":
                if isinstance(node.value, ast.Constant) and not node.value.value:
                    self._report(
                        node, ctx,
                        "`wp.config.cache_kernels = False` stops Warp from reusing compiled modules: every run "
                        "compiles every module from scratch",
                        "Remove the assignment",
                        restorable=target,
                    )  # fmt: skip
            elif name == "warp.config.kernel_cache_dir":
                reason = _temporary_reason(node.value, ctx) or _temporary_from_callers(node.value, ctx)
                if reason is None:
                    continue
                if is_test_harness(ctx.project.path_in_project(ctx.path)):
                    continue  # a private cache per test run is the right way to isolate a test
                self._report(
                    node, ctx,
                    f"the kernel cache is put in {reason}: nothing compiled in one run is found by the next, "
                    "so every run compiles from scratch",
                    "Remove the assignment (use the default cache)",
                    restorable=target,
                )  # fmt: skip

    # ------------------------------------------------------------------ reporting
    def _report_cuda(self, node: ast.AST, ctx: FileContext) -> None:
        self._report(
            node, ctx,
            "`CUDA_CACHE_DISABLE=1` turns off the CUDA driver's compute cache: PTX that Warp loads is compiled "
            "for the GPU again on every run",
            "Remove the setting",
        )  # fmt: skip

    def _report(self, node: ast.AST, ctx: FileContext, message: str, fix_title: str,
                restorable: ast.Attribute | None = None, conditions_only: bool = False) -> None:  # fmt: skip
        reason = deliberate_reason(node, ctx, conditions_only=conditions_only)
        if reason is None and restorable is not None and restored_in_scope(node, restorable, ctx):
            reason = "the old value is restored in the same function"
        if reason is None and is_test_harness(ctx.project.path_in_project(ctx.path)):
            reason = "this is test code"
        if reason is not None:
            ctx.report(node, f"{message} (this looks deliberate: {reason})", severity=Severity.INFO)
            return
        stmt = node if isinstance(node, (ast.Expr, ast.Assign)) else node.parent  # type: ignore[attr-defined]
        fixes = []
        if isinstance(node, ast.Call) and isinstance(node.parent, ast.Expr):  # type: ignore[attr-defined]
            fix = removal_fix(ctx, node.parent, fix_title)  # type: ignore[attr-defined]
            fixes = [fix] if fix else []
        elif isinstance(stmt, ast.Assign) and stmt is node:
            fix = removal_fix(ctx, stmt, fix_title)
            fixes = [fix] if fix else []
        ctx.report(node, message, fixes=fixes)


def _cache_dir_set_before(node: ast.Call, ctx: FileContext) -> int | None:
    """The line where the code around ``node`` (its function, or the module body) set
    ``wp.config.kernel_cache_dir`` before it, if it did."""
    function = next(iter(syntax.enclosing_functions(node)), None)
    lines = range(function.lineno, node.lineno) if function is not None else range(0, node.lineno)
    found = [o.span[0] for o in ctx.facts.options
             if o.kind == "config" and "kernel_cache_dir" in o.options and o.span[0] in lines
             and (function is not None or o.function is None)]  # fmt: skip
    return max(found) if found else None
