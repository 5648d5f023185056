"""The warp-ct language server (pygls 2). Importing this package does not import pygls:
``warp-ct lint`` must not pay for it; ``main`` imports the server lazily."""

from __future__ import annotations


def main(tcp: str | None = None) -> int:
    """Run the language server on stdio (default) or on TCP ``HOST:PORT``; returns the exit code."""
    from warp_ct.server.server import main as _main

    return _main(tcp=tcp)


__all__ = ["main"]
