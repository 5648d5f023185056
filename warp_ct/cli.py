"""Command line: ``warp-ct lint | fix | rules | explain | model | serve | probe | confirm | cache-key``.

Exit codes (ruff's convention, warp_ct.errors): 0 clean, 1 findings at or above the fail
level (default warning; info findings alone pass), 2 usage, configuration or
internal error. The lint path never imports pygls, lsprotocol or warp.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

from warp_ct import __version__
from warp_ct.errors import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, UsageError, os_error_reason
from warp_ct.output import relative_path
from warp_ct.output.escape import printable

# Re-exported: they lived here, and callers import them from warp_ct.cli.
__all__ = ["EXIT_CLEAN", "EXIT_ERROR", "EXIT_FINDINGS", "UsageError", "build_parser", "main", "relative_path"]


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
    explain.add_argument("--output-format", choices=("text", "json"), default="text")
    explain.set_defaults(handler=_cmd_explain)

    serve = sub.add_parser("serve", help="run the language server (stdio by default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    # Many LSP clients append --stdio by convention; it is already the default.
    serve.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default)")
    serve.set_defaults(handler=_cmd_serve)

    from warp_ct import confirm_command, model_command
    from warp_ct.probe import commands as probe_commands

    probe_commands.register(sub)
    confirm_command.register(sub)
    model_command.register(sub)
    return parser


def _cmd_rules(args: argparse.Namespace) -> int:
    from warp_ct.output.rules import all_rule_infos

    infos = all_rule_infos()
    if args.output_format == "json":
        import json

        print(json.dumps([info.to_dict() for info in infos], indent=2))
        return EXIT_CLEAN
    print(rules_table_text(), end="")
    return EXIT_CLEAN


def rules_table_text() -> str:
    """The text `warp-ct rules` prints (also the README's rules table source)."""
    from warp_ct.output.rules import all_rule_infos

    infos = all_rule_infos()
    width = max(len(i.name) for i in infos)
    lines = []
    for info in infos:
        fix = {None: "", "safe": "fix", "unsafe": "fix*"}[info.fix]
        lines.append(f"{info.code}  {info.name:<{width}}  {info.severity.label:<7}  {fix:<4}  {info.summary}".rstrip())
    lines.append("")
    lines.append("fix: a safe automatic fix; fix*: an unsafe fix (--unsafe-fixes). `warp-ct explain CODE` for details.")
    lines.append("WCT900 and WCT901 report problems with the input or with warp-ct itself, not Warp antipatterns.")
    return "\n".join(lines) + "\n"


def _cmd_explain(args: argparse.Namespace) -> int:
    from warp_ct.output.rules import rule_info

    info = rule_info(args.rule)
    if info is None:
        raise UsageError(f"unknown rule {args.rule!r}; `warp-ct rules` lists them")
    if args.output_format == "json":
        import json

        print(json.dumps({**info.to_dict(), "markdown": info.markdown}, indent=2))
    else:
        print(info.markdown, end="")
    return EXIT_CLEAN


def _cmd_serve(args: argparse.Namespace) -> int:
    from warp_ct.server import main as server_main

    tcp = None
    if args.tcp is not None:
        host, port = parse_tcp_address(args.tcp)
        check_tcp_address_free(host, port)
        tcp = f"{host}:{port}"
    return server_main(tcp=tcp)


DEFAULT_TCP_HOST = "127.0.0.1"


def parse_tcp_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` or ``::1:PORT`` for IPv6; an empty host is 127.0.0.1)
    as (host, port). Raises UsageError naming the address: a bad one is the user's mistake."""
    host, colon, port_text = text.strip().rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not colon or not port_text.strip().isdigit():
        raise UsageError(f"--tcp: expected HOST:PORT with a port number, got {text!r}")
    port = int(port_text)
    if not 1 <= port <= 65535:
        raise UsageError(f"--tcp: port {port} in {text!r} is out of range (1 to 65535)")
    return host or DEFAULT_TCP_HOST, port


def check_tcp_address_free(host: str, port: int) -> None:
    """Bind the address once and let it go, so that a host that does not resolve or a port
    already in use is reported here, as the user's problem, before the server starts (the
    server binds with SO_REUSEADDR too, so this check does not hold the port for it)."""
    import socket

    where = f"{host}:{port}" if ":" not in host else f"[{host}]:{port}"
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        reason = exc.strerror if isinstance(exc, socket.gaierror) and exc.strerror else str(exc)
        raise UsageError(f"--tcp: cannot resolve host {host!r} of {where}: {reason}") from None
    for family, kind, proto, _, address in addresses:
        try:
            with socket.socket(family, kind, proto) as probe:
                if os.name == "posix":
                    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(address)
        except OSError as exc:
            raise UsageError(f"--tcp: cannot listen on {where}: {os_error_reason(exc)}") from None


DEBUG_ENV = "WARP_CT_DEBUG"


# Set after a lint: freeing the caches of a long run at interpreter exit (astroid's module
# trees, project views) costs seconds (23 s over a 1.3M-line corpus when every file had an
# astroid tree) and nothing is left to clean up.
_skip_teardown = False


def run_lint_handler():
    from warp_ct.lint_command import run_lint

    return run_lint


def console_main() -> None:
    """The ``warp-ct`` console script (and ``python -m warp_ct``)."""
    code = main()
    if _skip_teardown:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    raise SystemExit(code)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help, --version, or a usage error (already printed)
            return exc.code if isinstance(exc.code, int) else (EXIT_CLEAN if exc.code is None else EXIT_ERROR)
        handler = getattr(args, "handler", None)
        if handler is None:
            parser.print_help(sys.stderr)
            return EXIT_ERROR
        code = int(handler(args) or 0)
        global _skip_teardown
        _skip_teardown = handler is run_lint_handler()
        return code
    except UsageError as exc:
        # A path named in the error comes from the user's tree: printed escaped, as findings are.
        print(f"warp-ct: error: {printable(str(exc))}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("warp-ct: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Output piped into `head` and closed early: not an error worth a traceback.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_CLEAN
    except Exception as exc:  # noqa: BLE001 - an internal error: one line, exit 2
        if os.environ.get(DEBUG_ENV):
            import traceback

            traceback.print_exc()
        else:
            print(
                f"warp-ct: error: internal error: {type(exc).__name__}: {printable(str(exc))} "
                f"(re-run with {DEBUG_ENV}=1 for the traceback, and please report it)",
                file=sys.stderr,
            )
        return EXIT_ERROR


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
