"""CLI wiring of ``warp-ct confirm`` (kept out of ``warp_ct.probe``: the probe never imports
the analyzer, and ``confirm`` is where the two meet).

Exit codes: 0 nothing to report · 1 findings or measured problems listed · 2 error.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(subparsers: Any) -> None:
    confirm = subparsers.add_parser(
        "confirm",
        help="lint sources and attach measured evidence from a probe report or levers ledger",
        description="Lint PATHS and attach the probe report's measurements (and a levers ledger's figures) "
        "to matching findings; list measured problems that no rule explains.",
        epilog="exit codes: 0 nothing to report, 1 findings or measured problems listed, 2 error.",
    )
    confirm.add_argument(
        "--json", metavar="REPORT", required=True,
        help="probe report from `probe measure --json`, or a ledger from `probe levers --json`",
    )  # fmt: skip
    confirm.add_argument("paths", nargs="*", metavar="PATHS", help="files/dirs to lint (default: the measured sources)")
    confirm.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    confirm.set_defaults(handler=_confirm_command)


def _confirm_command(args: argparse.Namespace) -> int:
    from warp_ct.confirm import run_confirm
    from warp_ct.probe.errors import ProbeError

    try:
        return run_confirm(args.json, args.paths, output_format=args.format)
    except ProbeError as error:
        print(f"warp-ct: error: {error}", file=sys.stderr)
        return error.exit_code
