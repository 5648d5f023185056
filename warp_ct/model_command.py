"""``warp-ct model [PATH...] [--json]``: what the program model understands, per project.

A completeness report, as pyright's ``--verifytypes`` is: for each project of the run (found
as ``lint`` finds them), how many launch sites of the named files the model follows to their
kernels, how many take their kernel from the project's API, and each one it cannot follow
with the reason; then the other figures rules depend on (``warp_ct.analyzer.coverage``).

Exit codes: 0 (it is a report), 2 for a path that does not exist or another usage error.
Never runs the user's code or imports warp.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from warp_ct.config import ConfigError, load_config
from warp_ct.errors import EXIT_CLEAN, UsageError
from warp_ct.output import relative_path

if TYPE_CHECKING:
    from warp_ct.analyzer.coverage import ProjectCoverage


def register(subparsers: Any) -> None:
    model = subparsers.add_parser(
        "model",
        help="show what warp-ct's model of the program follows, per project",
        description="For each project of PATHS: the launch sites whose kernel the model follows, "
        "those whose kernel comes from the project's API, and each one it cannot follow with the reason; "
        "generic-kernel launches with known argument types, launches known taped or untaped, "
        "module option changes with a known target and launches with a known block_dim.",
        epilog="exit codes: 0 (a report), 2 usage error.",
    )
    model.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: .)")
    model.add_argument("--json", action="store_true", help="print the figures as JSON")
    model.set_defaults(handler=_model_command)


def _model_command(args: argparse.Namespace) -> int:
    from warp_ct.analyzer.coverage import measure_paths

    paths = list(args.paths) or ["."]
    for path in paths:
        if not os.path.lexists(path):
            raise UsageError(f"{path}: no such file or directory")
    first = Path(paths[0])
    try:
        config = load_config(first if first.is_dir() else first.parent)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    projects = measure_paths(paths, config)
    if args.json:
        print(json.dumps({"projects": [_for_output(project.to_dict()) for project in projects]}, indent=2))
    else:
        sys.stdout.write(report_text(projects))
    return EXIT_CLEAN


def _for_output(figures: dict[str, Any]) -> dict[str, Any]:
    """Paths as the rest of the CLI shows them: relative to the working directory when under it."""
    figures["root"] = relative_path(figures["root"])
    for launch in (*figures["launches"]["external"], *figures["launches"]["unresolved"]):
        launch["path"] = relative_path(launch["path"])
    return figures


def report_text(projects: list[ProjectCoverage]) -> str:
    """One block per project: its root, the figures, then the launch sites not followed."""
    blocks = []
    for project in projects:
        figures = _for_output(project.to_dict())
        launches = figures["launches"]
        total = launches["total"]
        unresolved = launches["unresolved"]
        tapes = figures["tapes"]
        lines = [
            f"project {figures['root']} ({_count(figures['files'], 'file')} reported)",
            f"  launch sites            {total:>6}  followed {_share(total - len(unresolved), total)}: "
            f"resolved {launches['resolved']}{_at_call_sites(launches['resolved_at_call_sites'])}, "
            f"API parameter {launches['parameter']}{_installed(len(launches['external']))}; unresolved {len(unresolved)}",
            f"  generic-kernel launches {figures['generic_launches']['total']:>6}  argument types known "
            f"{figures['generic_launches']['types_known']}",
            f"  taped launches          {tapes['taped']:>6}  known untaped {tapes['untaped']}, unknown {tapes['unknown']}",
            f"  module option changes   {figures['option_changes']['total']:>6}  target known "
            f"{figures['option_changes']['targets_resolved']}",
            f"  block_dims known        {figures['block_dims']['known']:>6}  of {total}",
        ]
        if launches["external"]:
            lines.append("  launch sites of installed packages' kernels:")
            lines.extend(f"    {launch['path']}:{launch['line']}: {launch['reason']}" for launch in launches["external"])
        if unresolved:
            lines.append("  launch sites not followed:")
            lines.extend(f"    {launch['path']}:{launch['line']}: {launch['reason']}" for launch in unresolved)
        blocks.append("\n".join(lines) + "\n")
    if not blocks:
        return "No Python files found.\n"
    return "\n".join(blocks)


def _installed(count: int) -> str:
    return f", installed packages {count}" if count else ""


def _at_call_sites(count: int) -> str:
    return f" ({count} at their call sites)" if count else ""


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _share(part: int, total: int) -> str:
    return f"{part}/{total} ({part / total:.2f})" if total else "0/0"
