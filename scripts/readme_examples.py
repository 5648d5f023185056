#!/usr/bin/env python3
"""Regenerate the output shown in README.md's example blocks by running their commands.

An example block in README.md looks like this (the command is written once, in the comment):

    <!-- example: warp-ct lint examples/lint/per_call_kernel.py -->
    ```text
    $ warp-ct lint examples/lint/per_call_kernel.py
    ...what the command printed...
    ```
    <!-- /example -->

Each command runs as ``python -m warp_ct ARGS`` from the repository root with this checkout
on PYTHONPATH, without colour, and (for ``lint``/``fix``) with ``--no-cache``, so the output
does not depend on a cache, the machine or the environment. stdout and stderr are shown
together, as a terminal shows them.

Run it after changing what a shown command prints:  python scripts/readme_examples.py
`--check` exits 1 (naming the stale examples) instead of writing;
tests/cli/test_generated_docs.py runs the same comparison.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

EXAMPLE_RE = re.compile(
    r"(?P<open><!-- example: (?P<command>[^\n]*?) -->\n)(?P<body>.*?)(?P<close><!-- /example -->)",
    re.DOTALL,
)
# Environment variables that would change what warp-ct prints.
_UNSET = ("WARP_CT_OUTPUT_FORMAT", "WARP_CT_CACHE_DIR", "WARP_CT_DEBUG", "FORCE_COLOR")


def run_example(command: str, root: Path = ROOT) -> str:
    """What ``command`` (``warp-ct ...``) prints, run from ``root``."""
    argv = shlex.split(command)
    if argv[:1] != ["warp-ct"]:
        raise ValueError(f"README example {command!r}: only `warp-ct ...` commands are run")
    args = argv[1:]
    if args[:1] in (["lint"], ["fix"]) and "--no-cache" not in args:
        args = [args[0], "--no-cache", *args[1:]]
    env = {k: v for k, v in os.environ.items() if k not in _UNSET}
    env["PYTHONPATH"] = str(root) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "100"
    proc = subprocess.run(
        [sys.executable, "-m", "warp_ct", *args],
        cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300, check=False,
    )  # fmt: skip
    output = proc.stdout.decode("utf-8", "replace")
    if str(root) in output:
        raise ValueError(f"README example {command!r} prints an absolute path; pick one whose output is portable")
    return output


def example_block(command: str, output: str) -> str:
    if output and not output.endswith("\n"):
        output += "\n"
    return f"```text\n$ {command}\n{output}```\n"


def regenerate(readme: str, root: Path = ROOT) -> tuple[str, list[str]]:
    """(README text with every example's output regenerated, commands whose block changed)."""
    changed: list[str] = []

    def replace(match: re.Match[str]) -> str:
        command = match["command"].strip()
        body = example_block(command, run_example(command, root))
        if body != match["body"]:
            changed.append(command)
        return match["open"] + body + match["close"]

    return EXAMPLE_RE.sub(replace, readme), changed


def examples(readme: str) -> list[str]:
    """The commands of README's example blocks, in order."""
    return [m["command"].strip() for m in EXAMPLE_RE.finditer(readme)]


def stale(root: Path = ROOT) -> list[str]:
    """The example commands whose shown output is not what they print now."""
    readme = (root / "README.md").read_text(encoding="utf-8")
    return regenerate(readme, root)[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="name stale examples and exit 1 instead of writing")
    args = parser.parse_args(argv)
    path = ROOT / "README.md"
    readme = path.read_text(encoding="utf-8")
    text, changed = regenerate(readme)
    if args.check:
        for command in changed:
            print(f"stale: README.md example `{command}`")
        return 1 if changed else 0
    if changed:
        path.write_text(text, encoding="utf-8")
        for command in changed:
            print(f"updated: README.md example `{command}`")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
