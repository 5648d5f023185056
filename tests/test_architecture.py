"""The package's import structure (DESIGN.md, "Layout"): no import cycles between files of
``warp_ct``, and the analyzer and the probe never import each other, the server, or pygls.

Read from the source with ``ast``; nothing under test is imported. Every import counts:
module level, inside functions, under ``if TYPE_CHECKING:``, and ``importlib.import_module``
with a literal name. Relative imports are resolved against the importing file's package.
``from pkg import name`` depends on ``pkg.name`` when that is a module of the package, else
on ``pkg``; the parents a dotted import initialises along the way are not counted as edges.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

PACKAGE = "warp_ct"
ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIR = ROOT / PACKAGE

# Which packages a layer must never import (any of their modules, or the package itself).
FORBIDDEN = {
    "warp_ct.analyzer": ("warp_ct.probe", "warp_ct.server", "pygls", "lsprotocol"),
    "warp_ct.probe": ("warp_ct.analyzer", "warp_ct.confirm", "warp_ct.server"),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@lru_cache(maxsize=1)
def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE_DIR.rglob("*.py"))}


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _imports(module: str, path: Path) -> list[tuple[str, int]]:
    """(absolute imported name, line) for every import in the file, with ``from M import n``
    giving ``M.n`` when that is one of the package's modules and ``M`` otherwise."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    modules = _modules()
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base_parts = parts[: len(parts) - (node.level - 1)]
                assert base_parts and node.level - 1 < len(parts), f"{path}:{node.lineno}: relative import beyond the package"
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.append((candidate if candidate in modules else base, node.lineno))
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and not node.args[0].value.startswith(".")
            and (
                (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                or (isinstance(node.func, ast.Name) and node.func.id in ("import_module", "__import__"))
            )
        ):
            found.append((node.args[0].value, node.lineno))
    return found


def _resolve(name: str) -> str | None:
    """The package module ``name`` loads: itself, or its longest prefix that is a module."""
    modules = _modules()
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


@lru_cache(maxsize=1)
def _graph() -> dict[str, dict[str, int]]:
    """module -> {imported package module: first line importing it}."""
    graph: dict[str, dict[str, int]] = {}
    for module, path in _modules().items():
        edges: dict[str, int] = {}
        for name, line in _imports(module, path):
            if not _within(name, PACKAGE):
                continue
            target = _resolve(name)
            if target is not None:
                edges.setdefault(target, line)
        graph[module] = edges
    return graph


def _strongly_connected(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def _describe(component: list[str], graph: dict[str, dict[str, int]]) -> str:
    members = set(component)
    edges = [
        f"    {source} -> {target}  ({_modules()[source].relative_to(ROOT).as_posix()}:{line})"
        for source in component
        for target, line in sorted(graph[source].items())
        if target in members
    ]
    return "  cycle: " + " <-> ".join(component) + "\n" + "\n".join(edges)


def test_the_graph_sees_the_package():
    graph = _graph()
    assert "warp_ct.cli" in graph and "warp_ct.analyzer.engine" in graph
    assert "warp_ct.lint_command" in graph["warp_ct.cli"]  # a function-level import
    assert "warp_ct.config" in graph["warp_ct.analyzer.engine"]


def test_no_import_cycles_between_files():
    graph = _graph()
    cycles = [c for c in _strongly_connected(graph) if len(c) > 1 or c[0] in graph[c[0]]]
    assert not cycles, "import cycles in warp_ct (module-level, function-level or TYPE_CHECKING imports):\n" + "\n".join(
        _describe(c, graph) for c in cycles
    )


def test_layers_do_not_import_what_they_must_not():
    problems = []
    for module, path in _modules().items():
        for layer, forbidden in FORBIDDEN.items():
            if not _within(module, layer):
                continue
            for name, line in _imports(module, path):
                for banned in forbidden:
                    if _within(name, banned):
                        problems.append(f"  {path.relative_to(ROOT).as_posix()}:{line}: {module} imports {name} ({layer} must not import {banned})")
    assert not problems, "layering violations (DESIGN.md, Layout):\n" + "\n".join(sorted(set(problems)))


def test_cycle_finder_finds_cycles_and_self_loops():
    graph = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"d": 1}, "e": {"a": 1}}
    components = _strongly_connected(graph)
    assert ["a", "b", "c"] in components and ["d"] in components and ["e"] in components
    assert sorted(m for c in components for m in c) == sorted(graph)
