"""Dependencies point one way: cli/server use analyzer, probe and confirm; the probe never
imports the analyzer or confirm, and its modules import each other without cycles."""

from __future__ import annotations

import ast
from pathlib import Path

WARP_CT = Path(__file__).resolve().parents[2] / "warp_ct"


def _imports(path: Path) -> set[str]:
    """Every module a file imports, wherever the import is (TYPE_CHECKING and functions too)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return out


def _module(path: Path) -> str:
    parts = list(path.relative_to(WARP_CT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_the_probe_never_imports_the_analyzer_or_confirm():
    for path in (WARP_CT / "probe").rglob("*.py"):
        wrong = {m for m in _imports(path) if m.startswith(("warp_ct.analyzer", "warp_ct.confirm", "warp_ct.server"))}
        assert not wrong, f"{path.name} imports {sorted(wrong)}"
    for path in (WARP_CT / "analyzer").rglob("*.py"):
        assert not {m for m in _imports(path) if m.startswith("warp_ct.probe")}, path


def test_probe_modules_form_no_cycle():
    modules = {_module(p): p for p in (WARP_CT / "probe").rglob("*.py")}
    graph = {name: {m for m in _imports(path) if m in modules and m != name} for name, path in modules.items()}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in graph[start]:
            if nxt == goal or (nxt not in seen and (seen.add(nxt) or reaches(nxt, goal, seen))):
                return True
        return False

    cyclic = sorted(name for name in graph if reaches(name, name, set()))
    assert cyclic == [], f"import cycle through {cyclic}"


def test_server_measure_does_not_import_the_server_that_registers_it():
    assert "warp_ct.server.server" not in _imports(WARP_CT / "server" / "measure.py")
