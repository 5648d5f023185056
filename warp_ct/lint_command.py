"""``warp-ct lint``: the CI entry point."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from warp_ct.config import ConfigError, load_config


def register(sub: argparse._SubParsersAction) -> None:
    lint = sub.add_parser("lint", help="check files for Warp compile-time antipatterns")
    lint.add_argument("paths", nargs="*", default=["."], help="files or directories (default: .)")
    lint.add_argument("--select", help="comma-separated rule codes or prefixes to enable")
    lint.add_argument("--ignore", help="comma-separated rule codes or prefixes to disable")
    lint.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    lint.set_defaults(handler=run_lint)


def _split(value: str | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    return tuple(v.strip().upper() for v in value.split(",") if v.strip())


def run_lint(args: argparse.Namespace) -> int:
    from warp_ct.analyzer.engine import Linter
    from warp_ct.cli import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, relative_path

    start = Path(args.paths[0]) if args.paths else Path.cwd()
    try:
        config = load_config(start if start.exists() else Path.cwd())
    except ConfigError as exc:
        print(f"warp-ct: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    config = config.with_overrides(select=_split(args.select), ignore=_split(args.ignore))
    results = Linter(config).lint_paths(args.paths)
    count = 0
    for result in results:
        for note in result.notes:
            print(f"{relative_path(result.path)}: note: {note}", file=sys.stderr)
        for f in result.findings:
            count += 1
            print(f"{relative_path(f.path)}:{f.line}:{f.column}: {f.rule} {f.message}")
    if count:
        print(f"Found {count} finding{'s' if count != 1 else ''}.")
    return EXIT_FINDINGS if count and not args.exit_zero else EXIT_CLEAN
