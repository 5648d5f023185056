"""WCT012 pch-disabled."""

from __future__ import annotations

import ast
import re
from pathlib import PurePath

from warp_ct.analyzer import syntax
from warp_ct.analyzer.context import FileContext
from warp_ct.analyzer.model import Applicability, Fix, Severity
from warp_ct.analyzer.rules.base import Rule

_SETTING = "use_precompiled_headers"


class PchDisabled(Rule):
    code = "WCT012"
    name = "pch-disabled"
    severity = Severity.WARNING
    summary = "`wp.config.use_precompiled_headers = False` makes every CPU module compile Warp's headers again"
    fix_applicability = Applicability.UNSAFE
    uses_astroid = False
    triggers = (r"use_precompiled_headers",)
    docs = '''
    ## What it does
    Flags `wp.config.use_precompiled_headers = False` (through any name `warp.config` is
    imported as).

    ## Why it costs compile time
    A CPU module includes Warp's large native headers. With precompiled headers (the
    default) the headers are parsed once per process and every further module reuses
    them: the first CPU module costs a few seconds, each further small module a fraction
    of a second. Without them every module parses the headers itself, about 1.3–1.5 s per
    module on a small machine. A program with more than one or two CPU modules gets
    slower. The option does nothing for CUDA builds.

    ## Example
    ```python
    import warp as wp

    wp.config.use_precompiled_headers = False  # WCT012

    @wp.kernel
    def scale(a: wp.array(dtype=float), s: float):
        i = wp.tid()
        a[i] = a[i] * s
    ```

    ## Use instead
    Keep the default. If you turned it off because of a measured problem (one tiny CPU
    module in a short-lived process, or a compiler that rejects the header), measure a
    cold run both ways first, e.g. with `warp-ct probe measure`, and keep the setting
    only if it wins:
    ```python
    import warp as wp

    @wp.kernel
    def scale(a: wp.array(dtype=float), s: float):
        i = wp.tid()
        a[i] = a[i] * s
    ```

    ## When not to apply
    A scoped override that puts the old value back in the same function (typical in a
    test of the header-less path) is not reported; in test code the setting is reported
    only as information:
    ```python
    import warp as wp

    def build_without_pch(module):
        saved = wp.config.use_precompiled_headers
        wp.config.use_precompiled_headers = False
        try:
            wp.load_module(module, device="cpu")
        finally:
            wp.config.use_precompiled_headers = saved
    ```
    '''

    def visit_assign(self, node: ast.Assign, ctx: FileContext) -> None:
        if len(node.targets) != 1:
            return
        target = node.targets[0]
        # Cheap shape checks first: only ``<...>.use_precompiled_headers = <falsy constant>``
        # can name the setting (warp_name keeps the last attribute).
        if not (isinstance(target, ast.Attribute) and target.attr == _SETTING):
            return
        value = node.value
        if not (isinstance(value, ast.Constant) and value.value is not None and not value.value):
            return
        if _assigned_warp_name(target, ctx) != "warp.config.use_precompiled_headers":
            return
        if _restored_in_scope(node, target, ctx):
            return
        message = (
            "precompiled headers are turned off: every CPU module parses Warp's headers again "
            "(about a second or more per module); measure a cold run with and without this line before keeping it"
        )
        reason = _deliberate_reason(node, ctx) or ("this is test code" if _is_test_harness(ctx.path) else None)
        if reason is not None:
            ctx.report(node, f"{message} (this looks deliberate: {reason})", severity=Severity.INFO)
            return
        fix = _removal_fix(ctx, node, "Remove the assignment (restore the default)")
        ctx.report(node, message, fixes=[fix] if fix else [])


# ---------------------------------------------------------------------- helpers
# ``ast`` versions of the WCT008 helpers this rule used (``assigned_warp_name``,
# ``_restored_in_scope``, ``deliberate_reason``, ``is_test_harness``, ``removal_fix``).


def _assigned_warp_name(target: ast.AST, ctx: FileContext) -> str | None:
    """``ctx.warp_name`` for an attribute assignment target such as ``wp.config.mode``."""
    if isinstance(target, ast.Attribute):
        return ctx.warp_name(target)
    return None


def _restored_in_scope(node: ast.Assign, target: ast.Attribute, ctx: FileContext) -> bool:
    """``old = wp.config.x; wp.config.x = v; ...; wp.config.x = old``: a scoped override."""
    scope = syntax.scope_of(node)
    if isinstance(scope, ast.Module):
        return False
    wanted = _assigned_warp_name(target, ctx)
    assigned = getattr(node.value, "value", None)
    for other in syntax.nodes_of_class(scope, ast.Assign):
        if other is node:
            continue
        for t in other.targets:
            if isinstance(t, ast.Attribute) and _assigned_warp_name(t, ctx) == wanted:
                if not (isinstance(other.value, ast.Constant) and other.value.value == assigned):
                    return True
    return False


def _is_test_harness(path: str) -> bool:
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
# A comment that gives a reason (not one that only names the action, like "# clear cache").
_EXPLAINING_COMMENT_RE = re.compile(
    r"\bso (?:that|we|the|every|each|it)\b|\bto (?:measure|test|force|ensure|make sure|start|exercise|avoid|isolate)\b"
    r"|because|deliberate|intentional|on purpose|measur|benchmark|from scratch|\bfresh\b|ensure|make sure",
    re.IGNORECASE,
)


def _deliberate_reason(node: ast.AST, ctx: FileContext) -> str | None:
    """Why a cache-hostile statement looks like a deliberate maintenance path, if it does:
    an enclosing function named for it, a guarding condition that says so, or a comment."""
    child: ast.AST = node
    for parent in syntax.ancestors(node):
        if isinstance(parent, syntax.FUNCTION_TYPES):
            name = parent.name
            if "cache" in name.lower() and _MAINTENANCE_NAME_RE.search(name) or re.fullmatch(
                rf"_*{_MAINTENANCE_WORD}\w*", name, re.IGNORECASE
            ):
                return f"it runs inside `{name}()`"
        if isinstance(parent, (ast.If, ast.IfExp)) and child is not parent.test:
            test = ctx.source_of(parent.test)
            if _CONDITION_RE.search(test):
                return f"it only runs when `{test.strip()}`"
        child = parent
    if _explaining_comment(node, ctx):
        return "a comment explains it"
    return None


def _explaining_comment(node: ast.AST, ctx: FileContext) -> bool:
    first = (getattr(node, "lineno", None) or 1) - 1
    last = (getattr(node, "end_lineno", None) or getattr(node, "lineno", None) or 1) - 1
    comments = []
    trailing = ctx.index.line_text(last)
    if "#" in trailing:
        comments.append(trailing.split("#", 1)[1])
    # comment lines in the paragraph the statement belongs to (up to a blank line)
    own_indent = len(ctx.line_indent(first))
    line = first - 1
    while line >= 0 and first - line <= 8:
        raw = ctx.index.line_text(line)
        text = raw.strip()
        if not text or len(ctx.line_indent(line)) < own_indent:
            break  # a blank line or the start of the enclosing block ends the paragraph
        if text.startswith("#"):
            comments.append(text[1:])
        line -= 1
    for comment in comments:
        stripped = comment.strip()
        if re.match(r"(?i)(noqa|warp-ct:|type:|fmt:|pragma)", stripped):
            continue
        if _EXPLAINING_COMMENT_RE.search(stripped):
            return True
    return False


def _block_of(parent: ast.AST, stmt: ast.AST) -> list[ast.AST]:
    for attr in ("body", "orelse", "finalbody"):
        block = getattr(parent, attr, None)
        if isinstance(block, list) and any(s is stmt for s in block):
            return block
    return []


def _removal_fix(ctx: FileContext, stmt: ast.stmt, title: str) -> Fix | None:
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
