"""Output formats for ``warp-ct lint``: one module per format, all derived from ``Finding``.

``concise`` (default, one line per finding), ``full`` (with the source line, an underline
and the fix title), ``json`` (versioned), ``sarif`` (SARIF 2.1.0 for code scanning) and
``github`` (workflow-command annotations); ``statistics`` counts findings per rule.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, TextIO

from warp_ct.output.report import Note, Report

FORMATS = ("concise", "full", "json", "sarif", "github")
DEFAULT_FORMAT = "concise"
FORMAT_ENV = "WARP_CT_OUTPUT_FORMAT"


def relative_path(path: str) -> str:
    """Paths in output are relative to the working directory when under it."""
    try:
        return Path(os.path.abspath(path)).relative_to(Path.cwd()).as_posix()
    except ValueError:
        return Path(path).as_posix()


def use_color(stream: TextIO) -> bool:
    """Colour when writing to a terminal, unless NO_COLOR is set; FORCE_COLOR forces it."""
    if os.environ.get("NO_COLOR"):
        return False
    force = os.environ.get("FORCE_COLOR")
    if force is not None and force.strip().lower() not in ("", "0", "false", "no"):
        return True
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (ValueError, OSError):
        return False


def renderer(fmt: str) -> Callable[[Report, bool], str]:
    """``render(report, color) -> str`` of one format."""
    if fmt == "concise":
        from warp_ct.output.concise import render
    elif fmt == "full":
        from warp_ct.output.full import render
    elif fmt == "json":
        from warp_ct.output.json import render
    elif fmt == "sarif":
        from warp_ct.output.sarif import render
    elif fmt == "github":
        from warp_ct.output.github import render
    else:
        raise ValueError(f"unknown output format {fmt!r} (expected one of: {', '.join(FORMATS)})")
    return render


__all__ = ["DEFAULT_FORMAT", "FORMATS", "FORMAT_ENV", "Note", "Report", "relative_path", "renderer", "use_color"]
