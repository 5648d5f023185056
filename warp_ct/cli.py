"""Command line: ``warp-ct lint | fix | rules | explain | serve | probe | confirm | cache-key``.

Exit codes (ruff's convention): 0 no findings, 1 findings, 2 usage, configuration or
internal error. The lint path never imports pygls, lsprotocol or warp.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Sequence

from warp_ct import __version__

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


class UsageError(Exception):
    """A problem with how warp-ct was invoked; the message is shown as is (exit 2)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="warp-ct",
        description="Find, show and measure what makes NVIDIA Warp programs compile slowly.",
    )
    parser.add_argument("--version", action="version", version=f"warp-ct {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    from warp_ct import lint_command

    lint_command.register(sub)

    rules = sub.add_parser("rules", help="list the rules")
    rules.add_argument("--output-format", choices=("text", "json"), default="text")
    rules.set_defaults(handler=_cmd_rules)

    explain = sub.add_parser("explain", help="print one rule's documentation")
    explain.add_argument("rule", help="a rule code (WCT003) or name (per-call-kernel)")
    explain.set_defaults(handler=_cmd_explain)

    serve = sub.add_parser("serve", help="run the language server (stdio by default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    serve.set_defaults(handler=_cmd_serve)

    try:
        from warp_ct.probe import commands as probe_commands
    except ImportError:  # the probe package is optional at development time
        probe_commands = None
    if probe_commands is not None:
        probe_commands.register(sub)
    return parser


def _cmd_rules(args: argparse.Namespace) -> int:
    from warp_ct.analyzer.rules import all_rules

    rules = all_rules()
    if args.output_format == "json":
        import json

        data = [
            {
                "code": r.code,
                "name": r.name,
                "summary": r.summary,
                "severity": r.severity.label,
                "fix": r.fix_applicability.value if r.fix_applicability else None,
                "url": r.docs_url(),
            }
            for r in rules
        ]
        print(json.dumps(data, indent=2))
        return EXIT_CLEAN
    width = max(len(r.name) for r in rules)
    for r in rules:
        fix = {None: "   ", "safe": "fix", "unsafe": "fix*"}[r.fix_applicability.value if r.fix_applicability else None]
        print(f"{r.code}  {r.name:<{width}}  {r.severity.label:<7}  {fix:<4}  {r.summary}")
    print("\nfix: a safe automatic fix; fix*: an unsafe fix (--unsafe-fixes). `warp-ct explain CODE` for details.")
    return EXIT_CLEAN


def _cmd_explain(args: argparse.Namespace) -> int:
    from warp_ct.analyzer.rules import get_rule

    rule = get_rule(args.rule)
    if rule is None:
        raise UsageError(f"unknown rule {args.rule!r}; `warp-ct rules` lists them")
    print(rule.markdown(), end="")
    return EXIT_CLEAN


def _cmd_serve(args: argparse.Namespace) -> int:
    from warp_ct.server import main as server_main

    return server_main(tcp=args.tcp)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return EXIT_ERROR
    try:
        return int(handler(args) or 0)
    except UsageError as exc:
        print(f"warp-ct: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("warp-ct: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Output piped into `head` and closed early: not an error worth a traceback.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_CLEAN


def relative_path(path: str) -> str:
    """Paths in output are relative to the working directory when under it."""
    try:
        return Path(os.path.abspath(path)).relative_to(Path.cwd()).as_posix()
    except ValueError:
        return Path(path).as_posix()


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
