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

from typing import TYPE_CHECKING, Iterator

from astroid import nodes
from astroid.exceptions import AstroidError

from warp_ct.analyzer.astroid_context import imported_qname

if TYPE_CHECKING:
    from warp_ct.analyzer.astroid_context import FileContext

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


def decorator_target(decorator: nodes.NodeNG) -> nodes.NodeNG:
    """``@x`` -> x, ``@x(...)`` -> x."""
    return decorator.func if isinstance(decorator, nodes.Call) else decorator


def is_standard_memo_decorator(decorator: nodes.NodeNG) -> bool:
    qname = imported_qname(decorator_target(decorator))
    return qname in MEMOIZING_DECORATORS


def is_memoizing_decorator(decorator: nodes.NodeNG, ctx: "FileContext") -> bool:
    """A standard memoizing decorator, or a project decorator with the dict-cache shape."""
    if is_standard_memo_decorator(decorator):
        return True
    target = decorator_target(decorator)
    if not isinstance(target, (nodes.Name, nodes.Attribute)):
        return False
    if imported_qname(target) is not None and not _may_be_project(target, ctx):
        return False
    for value in ctx.infer(target, limit=4):
        if isinstance(value, nodes.FunctionDef) and not _is_stub(value):
            if value.qname() in MEMOIZING_DECORATORS:
                return True
            if caches_in_dict(value, include_nested=True):
                return True
        elif isinstance(value, nodes.ClassDef):
            # A class used as a decorator (``@Memoize``): look at its methods.
            for method in value.mymethods():
                if caches_in_dict(method, include_nested=True):
                    return True
    return False


def _may_be_project(target: nodes.NodeNG, ctx: "FileContext") -> bool:
    qname = imported_qname(target) or ""
    top = qname.split(".")[0]
    if top in ("functools", "warp", "typing", "builtins", "abc", "contextlib"):
        return False
    return True


def _is_stub(func: nodes.FunctionDef) -> bool:
    root = func.root()
    return isinstance(root, nodes.Module) and bool(root.file) and str(root.file).startswith("<warp-ct stub>")


def is_memoized(func: nodes.FunctionDef, ctx: "FileContext") -> bool:
    """``func`` keeps its results: memoizing decorator, or dict caching in its own body."""
    if func.decorators is not None:
        for decorator in func.decorators.nodes:
            if is_memoizing_decorator(decorator, ctx):
                return True
    return caches_in_dict(func, include_nested=False)


def caches_in_dict(func: nodes.FunctionDef, *, include_nested: bool) -> bool:
    """Does ``func`` look results up in, and store them into, a dict that outlives the call?

    ``include_nested`` also looks into functions defined inside (a decorator's wrapper).
    """
    reads: set[str] = set()
    writes: set[str] = set()
    for node in _walk_body(func, include_nested):
        if isinstance(node, nodes.Compare):
            for op, right in node.ops:
                if op in ("in", "not in") and _outlives(right, func):
                    reads.add(_key(right))
        elif isinstance(node, nodes.Subscript) and _outlives(node.value, func):
            ctx_kind = _subscript_role(node)
            (writes if ctx_kind == "store" else reads).add(_key(node.value))
        elif isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute):
            owner = node.func.expr
            if not _outlives(owner, func):
                continue
            if node.func.attrname in _READ_METHODS:
                reads.add(_key(owner))
            if node.func.attrname in _WRITE_METHODS:
                writes.add(_key(owner))
    # ``cache.setdefault(key, make())`` both reads and writes.
    return bool(reads & writes)


def _subscript_role(node: nodes.Subscript) -> str:
    parent = node.parent
    if isinstance(parent, (nodes.Assign, nodes.AnnAssign, nodes.AugAssign)):
        targets = parent.targets if isinstance(parent, nodes.Assign) else [parent.target]
        if any(t is node for t in targets):
            return "store"
    if isinstance(parent, (nodes.Tuple, nodes.List)) and isinstance(parent.parent, nodes.Assign):
        if any(t is parent for t in parent.parent.targets):
            return "store"
    if isinstance(parent, nodes.Delete):
        return "delete"
    return "load"


def _key(node: nodes.NodeNG) -> str:
    return node.as_string()


def _outlives(node: nodes.NodeNG, func: nodes.FunctionDef) -> bool:
    """Is this container bound outside the call that uses it (global, closure cell, attribute)?"""
    if isinstance(node, nodes.Attribute):
        # self._cache, cls._kernels, module.CACHE, wrapper.cache ...
        return isinstance(node.expr, (nodes.Name, nodes.Attribute))
    if isinstance(node, nodes.Name):
        try:
            scope, bindings = node.lookup(node.name)
        except AstroidError:
            return False
        if not bindings:
            return False
        # A dict bound in the module, or in an enclosing function (a decorator's closure
        # cell seen from its wrapper), outlives one call of the function that uses it.
        return scope is not node.frame()
    return False


def _walk_body(func: nodes.FunctionDef, include_nested: bool) -> Iterator[nodes.NodeNG]:
    stack: list[nodes.NodeNG] = list(reversed(func.body))
    while stack:
        node = stack.pop()
        yield node
        for child in reversed(list(node.get_children())):
            if isinstance(child, (nodes.FunctionDef, nodes.ClassDef, nodes.Lambda)):
                if not include_nested or isinstance(child, nodes.ClassDef):
                    continue
                if isinstance(child, nodes.FunctionDef) and _looks_like_warp_code(child):
                    continue
            stack.append(child)


def _looks_like_warp_code(func: nodes.FunctionDef) -> bool:
    """A nested ``@wp.kernel``/``@wp.func`` body is Warp code, not caching logic."""
    if not func.decorators:
        return False
    for decorator in func.decorators.nodes:
        text = decorator_target(decorator).as_string()
        if text.rsplit(".", 1)[-1] in ("kernel", "func", "struct", "func_native", "overload"):
            return True
    return False
