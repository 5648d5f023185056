"""Client URIs to local file paths: one path for every spelling of the same file.

``file:///home/u/a.py`` and ``file://localhost/home/u/a.py`` name the same file (RFC 8089:
the host ``localhost`` is the machine itself, as an empty host is). pygls' ``to_fs_path``
turns the second into ``//localhost/home/u/a.py``, a path in no project, so a document
opened that way was analysed without the rest of its project and lost the findings that
need it. A ``file:`` URI that names no local path (a NUL byte, no path) raises
:class:`UnusableUri` with a one-line reason, so that the message carrying it is refused as
the client's mistake instead of failing deep inside the analysis with a traceback.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

from pygls.uris import to_fs_path

LOCAL_HOSTS = ("", "localhost")


class UnusableUri(ValueError):
    """A ``file:`` URI that names no usable local path; the message says why, on one line."""


def file_path(uri: str) -> str | None:
    """The local path a ``file:`` URI names; None for other schemes (``untitled:``, a
    notebook cell) and, outside Windows, for a file on another host."""
    try:
        parts = urlsplit(uri)
    except ValueError as exc:  # e.g. an unbalanced "[" where the host goes
        raise UnusableUri(f"{shown(uri)} is not a URI ({exc})") from None
    if parts.scheme.lower() != "file":
        return None
    if parts.netloc.lower() in LOCAL_HOSTS:
        path = to_fs_path(urlunsplit(("file", "", parts.path, "", "")))
    elif os.name == "nt":
        path = to_fs_path(uri)  # \\host\share\...: a UNC path Windows opens
    else:
        return None
    if not path:
        raise UnusableUri(f"{shown(uri)} names no path")
    if "\0" in path:
        raise UnusableUri(f"{shown(uri)} holds a NUL character (%00), which no file path can")
    return path


def shown(uri: str, limit: int = 100) -> str:
    """``uri`` quoted for a one-line message (control characters escaped, long ones cut)."""
    return repr(uri if len(uri) <= limit else uri[:limit] + "...")
