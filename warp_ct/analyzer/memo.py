"""Is a function memoized? (WCT003 and friends.)

A kernel defined inside a function is only a problem when that function runs again and
again. It does not when the function keeps its results:

- a standard memoizing decorator: ``functools.cache``, ``functools.lru_cache`` (bare or
  called), ``cache`` / ``lru_cache`` imported from functools, ``functools.cached_property``,
  ``cachetools.cached``;
- a project decorator that keeps results in a dict: inferred to its ``FunctionDef``
  (possibly in another file of the linted project) and recognised by the dict-cache shape
  (``if key in cache: return cache[key]``, ``cache[key] = ...``, ``cache.get``,
  ``cache.setdefault``);
- a factory whose own body caches inline: ``if key not in _kernels: ...;
  return _kernels[key]`` on a dict that outlives the call (module global, closure cell,
  attribute such as ``self._kernels``).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Iterator

from warp_ct.analyzer import syntax
from warp_ct.analyzer.context import imported_qname

if TYPE_CHECKING:
    from warp_ct.analyzer.context import FileContext

MEMOIZING_DECORATORS = frozenset(
    {
        "functools.cache",
        "functools.lru_cache",
        "functools.cached_property",
        "cachetools.cached",
        "cachetools.func.lru_cache",
        "cachetools.func.ttl_cache",
        "cachetools.func.lfu_cache",
        "methodtools.lru_cache",
    }
)

_WRITE_METHODS = frozenset({"setdefault", "__setitem__"})
_READ_METHODS = frozenset({"get", "setdefault", "__getitem__", "__contains__", "pop"})


def decorator_target(decorator: ast.expr) -> ast.expr:
    """``@x`` -> x, ``@x(...)`` -> x."""
    return decorator.func if isinstance(decorator, ast.Call) else decorator


def is_standard_memo_decorator(decorator: ast.expr) -> bool:
    qname = imported_qname(decorator_target(decorator))
    return qname in MEMOIZING_DECORATORS


def is_memoizing_decorator(decorator: ast.expr, ctx: "FileContext") -> bool:
    """A standard memoizing decorator, or a project decorator with the dict-cache shape."""
    if is_standard_memo_decorator(decorator):
        return True
    target = decorator_target(decorator)
    if not isinstance(target, (ast.Name, ast.Attribute)):
        return False
    if imported_qname(target) is not None and not _may_be_project(target):
        return False
    from astroid import nodes as anodes

    for value in ctx.infer(target, limit=4):
        if isinstance(value, anodes.FunctionDef) and not _is_stub(value):
            if value.qname() in MEMOIZING_DECORATORS:
                return True
            definition = ctx.ast_definition(value)
            if definition is not None and caches_in_dict(definition, include_nested=True):
                return True
        elif isinstance(value, anodes.ClassDef):
            # A class used as a decorator (``@Memoize``): look at its methods.
            definition = ctx.ast_definition(value)
            for method in getattr(definition, "body", ()):
                if isinstance(method, syntax.FUNCTION_TYPES) and caches_in_dict(method, include_nested=True):
                    return True
    return False


def _may_be_project(target: ast.expr) -> bool:
    qname = imported_qname(target) or ""
    top = qname.split(".")[0]
    return top not in ("functools", "warp", "typing", "builtins", "abc", "contextlib")


def _is_stub(func) -> bool:
    file = getattr(func.root(), "file", None)
    return bool(file) and str(file).startswith("<warp-ct stub>")


def is_memoized(func: ast.FunctionDef | ast.AsyncFunctionDef, ctx: "FileContext") -> bool:
    """``func`` keeps its results: memoizing decorator, or dict caching in its own body."""
    for decorator in func.decorator_list:
        if is_memoizing_decorator(decorator, ctx):
            return True
    return caches_in_dict(func, include_nested=False)


def caches_in_dict(func: ast.FunctionDef | ast.AsyncFunctionDef, *, include_nested: bool) -> bool:
    """Does ``func`` look results up in, and store them into, a dict that outlives the call?

    ``include_nested`` also looks into functions defined inside (a decorator's wrapper).
    """
    reads: set[str] = set()
    writes: set[str] = set()
    for node in _walk_body(func, include_nested):
        if isinstance(node, ast.Compare):
            for op, right in zip(node.ops, node.comparators):
                if isinstance(op, (ast.In, ast.NotIn)) and _outlives(right, func):
                    reads.add(syntax.as_string(right))
        elif isinstance(node, ast.Subscript) and _outlives(node.value, func):
            (writes if isinstance(node.ctx, ast.Store) else reads).add(syntax.as_string(node.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if not _outlives(owner, func):
                continue
            if node.func.attr in _READ_METHODS:
                reads.add(syntax.as_string(owner))
            if node.func.attr in _WRITE_METHODS:
                writes.add(syntax.as_string(owner))
    # ``cache.setdefault(key, make())`` both reads and writes.
    return bool(reads & writes)


def _outlives(node: ast.expr, func: ast.AST) -> bool:
    """Is this container bound outside the call that uses it (global, closure cell, attribute)?"""
    if isinstance(node, ast.Attribute):
        # self._cache, cls._kernels, module.CACHE, wrapper.cache ...
        return isinstance(node.value, (ast.Name, ast.Attribute))
    if isinstance(node, ast.Name):
        scope, bindings = syntax.lookup(node)
        if not bindings:
            return False
        # A dict bound in the module, or in an enclosing function (a decorator's closure
        # cell seen from its wrapper), outlives one call of the function that uses it.
        return scope is not syntax.frame_of(node)
    return False


def _walk_body(func: ast.FunctionDef | ast.AsyncFunctionDef, include_nested: bool) -> Iterator[ast.AST]:
    stack: list[ast.AST] = list(reversed(func.body))
    while stack:
        node = stack.pop()
        yield node
        for child in reversed(list(ast.iter_child_nodes(node))):
            if isinstance(child, (*syntax.FUNCTION_TYPES, ast.ClassDef, ast.Lambda)):
                if not include_nested or isinstance(child, ast.ClassDef):
                    continue
                if isinstance(child, syntax.FUNCTION_TYPES) and _looks_like_warp_code(child):
                    continue
            stack.append(child)


def _looks_like_warp_code(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A nested ``@wp.kernel``/``@wp.func`` body is Warp code, not caching logic."""
    for decorator in func.decorator_list:
        text = syntax.as_string(decorator_target(decorator))
        if text.rsplit(".", 1)[-1] in ("kernel", "func", "struct", "func_native", "overload"):
            return True
    return False
