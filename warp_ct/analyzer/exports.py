"""Which Warp API a project module hands out under a name, read from its syntax.

``from .utils import kernel_decorator`` in one file is a Warp name when ``utils`` binds
``kernel_decorator`` to one: ``from warp import kernel as kernel_decorator``, ``import warp
as kernel_decorator``, ``kernel_decorator = wp.kernel``, or the same through another
project module. Answering that with astroid means building the exporting module's tree
(about 5x an ``ast.parse``) and often the trees of what it imports; on newton that was a
quarter of the lint. The top-level bindings of each module are read once per project
instead, and astroid is asked only about what they cannot settle (``*`` imports, a name
bound twice, an assignment of a computed value).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Protocol

from warp_ct.analyzer import syntax

UNKNOWN = "<unknown>"  # the syntax cannot tell: ask astroid
_MAX_DEPTH = 6


@dataclass(frozen=True, slots=True)
class Export:
    """How a module binds a top-level name.

    kind: ``module`` (``import a.b as name``: target ``a.b``), ``from`` (``from M import x
    as name``: target ``M.x`` with M absolute), ``alias`` (``name = a.b``: target ``a.b``),
    ``definition`` (a def, a class, a call's result or a computed value: never a Warp API),
    ``star`` (under the key ``"*"``: ``from M import *``; target: the modules, comma-separated),
    ``choice`` (bound more than once: see ``alternatives``), ``unknown``.
    """

    kind: str
    target: str = ""
    # ``choice``: a name bound more than once (``try: from a import x`` / ``except: from b
    # import x``, overloads): how each binding binds it.
    alternatives: tuple["Export", ...] = ()


def module_exports(tree: ast.Module, module_name: str, is_package: bool) -> dict[str, Export]:
    """Top-level name -> Export of a module's tree (read with its facts: one parse). The
    key ``"*"`` is present when the module star-imports: unlisted names come from there."""
    found: dict[str, list[Export]] = {}
    star_sources: list[str] = []

    def bind(name: str, export: Export) -> None:
        found.setdefault(name, []).append(export)

    stack: list[ast.AST] = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bind(alias.asname, Export("module", alias.name))
                else:
                    top = alias.name.split(".")[0]
                    bind(top, Export("module", top))
        elif isinstance(node, ast.ImportFrom):
            base = syntax.absolute_module(module_name, is_package, node.module, node.level)
            for alias in node.names:
                if alias.name == "*":
                    star_sources.append(base)
                else:
                    bind(alias.asname or alias.name, Export("from", f"{base}.{alias.name}"))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bind(node.name, _DEFINITION)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = syntax.dotted_text(node.value) if node.value is not None else None
            simple = isinstance(node, ast.Assign) and len(targets) == 1 and isinstance(targets[0], ast.Name)
            if simple and value:
                export = Export("alias", value)
            elif simple and _never_an_api(node.value):  # type: ignore[arg-type]
                # A call's result (``vec8f = wp.vec(...)``), a literal, a container or a
                # computed value (``MAX_ID = (1 << BITS) - 1``): no Warp API.
                export = _DEFINITION
            else:
                export = _UNKNOWN_BINDING
            for target in targets:
                for name in syntax.nodes_of_class(target, ast.Name):
                    if syntax.is_store(name):
                        bind(name.id, export)
        elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)) or type(node).__name__ == "TryStar":
            # Bindings in module-level blocks are module bindings too; loops and handlers
            # bind conditionally, which makes a second binding of the name: unknown.
            for field in ("body", "orelse", "finalbody", "handlers"):
                stack.extend(reversed(getattr(node, field, [])))
            if isinstance(node, (ast.For, ast.With)):
                targets = [node.target] if isinstance(node, ast.For) else [i.optional_vars for i in node.items]
                for target in targets:
                    for name in syntax.nodes_of_class(target, ast.Name) if target is not None else ():
                        bind(name.id, _UNKNOWN_BINDING)
        elif isinstance(node, ast.ExceptHandler):
            if node.name:
                bind(node.name, _UNKNOWN_BINDING)
            stack.extend(reversed(node.body))
        else:
            for name in syntax.nodes_of_class(node, ast.Name):
                if syntax.is_store(name):  # walrus, match captures and the like
                    bind(name.id, _UNKNOWN_BINDING)
    exports = {name: exports[0] if len(exports) == 1 else _choice(exports) for name, exports in found.items()}
    if star_sources:
        exports["*"] = Export("star", ",".join(star_sources))
    return exports


def _choice(bindings: list[Export]) -> Export:
    if all(b.kind == "definition" for b in bindings):
        return bindings[0]  # overloads, a function defined in both arms of an ``if``
    if any(b.kind == "unknown" for b in bindings):
        return _UNKNOWN_BINDING
    return Export("choice", alternatives=tuple(bindings))


# The bindings most names have, one object each (an Export is immutable; a frozen
# dataclass's __init__ is slow, and every def and class of every file makes one).
_DEFINITION = Export("definition")
_UNKNOWN_BINDING = Export("unknown")

# Values no Warp API can be: literals, containers, arithmetic, comparisons, f-strings.
_COMPUTED = (
    ast.Constant, ast.BinOp, ast.UnaryOp, ast.Compare, ast.JoinedStr, ast.Dict, ast.List, ast.Tuple, ast.Set,
    ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda,
)  # fmt: skip


def _never_an_api(value: ast.expr) -> bool:
    """The value of ``name = value`` is never a Warp API (a decorator, a function, the
    config, a module) that a later ``from here import name`` could hand out."""
    if isinstance(value, _COMPUTED):
        return True
    if isinstance(value, ast.Call):
        return not _partial(value)
    if isinstance(value, ast.BoolOp):  # one of the operands
        return all(_never_an_api(v) for v in value.values)
    if isinstance(value, ast.IfExp):
        return _never_an_api(value.body) and _never_an_api(value.orelse)
    if isinstance(value, ast.Attribute):
        return syntax.dotted_text(value) is None  # an attribute of a computed value
    return False


def _partial(call: ast.Call) -> bool:
    """``functools.partial(wp.kernel, ...)`` and the like hand out a wrapped callable."""
    return (syntax.dotted_text(call.func) or "").rsplit(".", 1)[-1] in ("partial", "wraps")


class ExportsSource(Protocol):
    """What :func:`resolve_export` asks of the project (``analyzer.project.Project``; typed
    structurally so this module does not import the one that imports it)."""

    def exports(self, module_name: str) -> dict[str, Export] | None: ...


def resolve_export(project: ExportsSource, module_name: str, name: str, depth: int = 0) -> str | None:
    """The Warp API ``from module_name import name`` gives (``"warp.kernel"``), None when
    it is certainly not one, ``UNKNOWN`` when the syntax cannot tell."""
    if module_name == "warp" or module_name.startswith("warp."):
        return f"{module_name}.{name}"
    if depth > _MAX_DEPTH:
        return UNKNOWN
    exports = project.exports(module_name)
    if exports is None:
        return None  # outside the project (or unparsable): only project modules re-export Warp
    return _resolve(project, module_name, name, exports, exports.get(name), depth)


def _resolve(project: ExportsSource, module_name: str, name: str, exports: dict[str, Export],
             export: Export | None, depth: int) -> str | None:  # fmt: skip
    """``resolve_export`` of one binding (``export``) of ``name`` in ``module_name``."""
    if export is None:
        star = exports.get("*")
        if star is not None:  # the name may come from a ``*`` import
            for source in star.target.split(","):
                found = resolve_export(project, source, name, depth + 1)
                if found is not None:
                    return found
        # ``from pkg import sub`` of a submodule, or a name the module does not have.
        return None
    if export.kind == "definition":
        return None
    if export.kind == "module":
        return export.target if export.target == "warp" or export.target.startswith("warp.") else None
    if export.kind == "from":
        if project.exports(export.target) is not None:
            return None  # ``from . import sub``: a project module, not a Warp API
        source, _, original = export.target.rpartition(".")
        return resolve_export(project, source, original, depth + 1)
    if export.kind == "alias":
        base, _, rest = export.target.partition(".")
        root = resolve_export(project, module_name, base, depth + 1)
        if root is None or root == UNKNOWN:
            return root
        return f"{root}.{rest}" if rest else root
    if export.kind == "choice":
        found = {_resolve(project, module_name, name, exports, alternative, depth + 1) for alternative in export.alternatives}
        if found == {None}:
            return None  # no binding hands out a Warp API
        return found.pop() if len(found) == 1 else UNKNOWN
    return UNKNOWN
