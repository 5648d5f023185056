"""Reading LSP messages from stdin or a socket without trusting the input.

pygls 2.1's reader loop (``pygls.io_.run_async``) allocates whatever ``Content-Length`` a
header announces (``Content-Length: 99999999999`` ends the server with a MemoryError), logs
a traceback and answers nothing for a body that is not JSON, and silently swallows a header
without a ``Content-Length`` together with the messages after it. This loop replaces it for
``WarpCtServer.start_io`` and ``start_tcp``. Each message it cannot take gets one log line
and, where the client can be told, a JSON-RPC error with ``"id": null`` (or the request's
id); then it reads on:

- a body over ``MAX_BODY_BYTES``: refused without being allocated, its bytes read and
  dropped, so that the next message is framed as the client sent it;
- a header without a usable ``Content-Length`` (none, not a number, a line too long): the
  body cannot be framed; what follows is skipped up to the next ``Content-Length`` header
  (found even at the end of a line, where an unframed body runs into the next header);
- a body that is not JSON: -32700 Parse error; JSON that is not a JSON-RPC message:
  -32600 Invalid Request; params a request cannot be read with: -32602 Invalid params.

The end of the input inside a message ends the server with one line; no traceback.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

from pygls.exceptions import JsonRpcException

if TYPE_CHECKING:
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from pygls.server import JsonRPCServer

logger = logging.getLogger(__name__)

# Far above any real message (a 50,000-line file opened in the editor is ~2 MB of JSON), far
# below what would hurt to hold in memory.
MAX_BODY_BYTES = 64 * 1024 * 1024
MAX_HEADER_LINE = 8 * 1024  # header fields are a few dozen bytes
_DISCARD_CHUNK = 1024 * 1024

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

# Anywhere in a line: after an unframed body the next header starts where the body stopped.
_CONTENT_LENGTH_RE = re.compile(rb"content-length[ \t]*:[ \t]*([^\r\n]*)", re.IGNORECASE)
_HEADER_FIELD_RE = re.compile(rb"^[A-Za-z0-9-]+[ \t]*:")


class LineTooLong(Exception):
    """A header line over the limit; the reader has consumed it."""


class Reader(Protocol):
    async def readline(self, limit: int) -> bytes:
        """One line with its end (the bytes before the end of the input for the last one;
        b"" at the end); a line longer than ``limit`` is consumed and raises LineTooLong."""

    async def read(self, n: int) -> bytes:
        """Up to ``n`` bytes, at least one unless the input has ended (then b"")."""


class StdinReader:
    """A blocking binary stream (stdin), read on the server's thread pool as pygls does."""

    def __init__(self, stream: BinaryIO, executor: ThreadPoolExecutor) -> None:
        self.stream = stream
        self.executor = executor

    async def readline(self, limit: int) -> bytes:
        return await asyncio.get_running_loop().run_in_executor(self.executor, self._readline, limit)

    async def read(self, n: int) -> bytes:
        return await asyncio.get_running_loop().run_in_executor(self.executor, self.stream.read, n)

    def _readline(self, limit: int) -> bytes:
        line = self.stream.readline(limit)
        if len(line) < limit or line.endswith(b"\n"):
            return line
        while True:  # consume the rest of the long line, a bounded piece at a time
            rest = self.stream.readline(_DISCARD_CHUNK)
            if not rest or rest.endswith(b"\n"):
                raise LineTooLong


class SocketReader:
    """An asyncio stream (a TCP connection)."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self.stream = stream

    async def readline(self, limit: int) -> bytes:
        try:
            line = await self.stream.readline()
        except ValueError:  # over the stream's own buffer limit: asyncio has dropped it
            raise LineTooLong from None
        if len(line) > limit:
            raise LineTooLong
        return line

    async def read(self, n: int) -> bytes:
        return await self.stream.read(n)


@dataclass
class Header:
    length: int | None = None  # a usable Content-Length
    problem: str | None = None  # why the body cannot be read, when it cannot
    skipped: int = 0  # bytes before or inside the header that were no header field


async def serve(reader: Reader, server: JsonRPCServer, stop_event: threading.Event) -> None:
    """Read messages and hand them to ``server.protocol`` until the input ends or the server stops."""
    while not stop_event.is_set():
        header = await _read_header(reader)
        if header is None:
            return
        if header.skipped:
            logger.warning("skipped %d bytes of input that were not a message header", header.skipped)
        if header.length is None:
            _refuse(server, None, PARSE_ERROR, f"Parse error: {header.problem}; the message was skipped")
            continue
        if header.length > MAX_BODY_BYTES:
            size = str(header.length) if header.length < 10**20 else f"{str(header.length)[:20]}..."
            _refuse(server, None, INVALID_REQUEST, f"Invalid Request: a message of {size} bytes is over "
                    f"the limit of {MAX_BODY_BYTES // (1024 * 1024)} MiB; it was skipped")  # fmt: skip
            if not await _discard(reader, header.length):
                logger.warning("the input ended inside the skipped message; stopping")
                return
            continue
        body = await _read_exactly(reader, header.length)
        if body is None:
            logger.warning("the input ended inside a message (Content-Length: %d); stopping", header.length)
            return
        _handle(server, body)


async def _read_header(reader: Reader) -> Header | None:
    """The next message's header, through its empty line; None at the end of the input."""
    header = Header()
    has_field = False
    while True:
        try:
            line = await reader.readline(MAX_HEADER_LINE)
        except LineTooLong:
            header.skipped += MAX_HEADER_LINE  # at least
            continue
        if not line:
            if has_field:
                logger.warning("the input ended inside a message header; stopping")
            elif header.skipped:
                logger.warning("skipped %d bytes of input that were not a message header", header.skipped)
            return None
        if not line.strip():
            if not has_field:
                continue  # an empty line between messages: nothing lost
            if header.length is None and header.problem is None:
                header.problem = "a message header without Content-Length"
            return header
        found = _CONTENT_LENGTH_RE.search(line)
        if found is not None:
            header.skipped += found.start()
            has_field = True
            value = found.group(1).strip()
            header.length = _length(value)
            header.problem = None if header.length is not None else f"Content-Length is not a number ({_shown(value)})"
        elif _HEADER_FIELD_RE.match(line):
            has_field = True  # Content-Type and the like: nothing to use
        else:
            header.skipped += len(line)


def _length(value: bytes) -> int | None:
    if not value.isdigit():  # bytes.isdigit: ASCII digits only (no sign, no spaces)
        return None
    try:
        return int(value)
    except ValueError:  # more digits than int() converts (4,300): no real length either
        return None


async def _read_exactly(reader: Reader, n: int) -> bytes | None:
    chunks = []
    missing = n
    while missing:
        chunk = await reader.read(missing)
        if not chunk:
            return None
        chunks.append(chunk)
        missing -= len(chunk)
    return b"".join(chunks)


async def _discard(reader: Reader, n: int) -> bool:
    """Read and drop ``n`` bytes a bounded piece at a time; False if the input ends first."""
    while n:
        chunk = await reader.read(min(n, _DISCARD_CHUNK))
        if not chunk:
            return False
        n -= len(chunk)
    return True


def _handle(server: JsonRPCServer, body: bytes) -> None:
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:  # not JSON, not UTF-8, nested too deep
        _refuse(server, None, PARSE_ERROR, f"Parse error: the message is not JSON ({exc})")
        return
    problem = _not_a_message(data)
    if problem is not None:
        _refuse(server, _id_of(data), INVALID_REQUEST, f"Invalid Request: {problem}")
        return
    protocol = server.protocol
    try:
        message = protocol.structure_message(data)
    except JsonRpcException as exc:
        method = data.get("method")
        if "id" in data and method is not None:
            _refuse(server, data["id"], INVALID_PARAMS, exc.message)
        else:
            logger.warning("ignored %s: %s", f"notification {method!r}" if method else "a response", exc.message)
        return
    try:
        protocol.handle_message(message)
    except BrokenPipeError:
        raise  # the client is gone: the server stops
    except Exception as exc:  # noqa: BLE001 - pygls answers a handler's errors itself; anything else is logged
        logger.warning("error while handling %r: %s: %s", data.get("method", "a response"), type(exc).__name__, exc)


def _not_a_message(data: Any) -> str | None:
    """Why ``data`` is no JSON-RPC 2.0 request, notification or response (None when it is one)."""
    if not isinstance(data, dict):
        return f"a message is a JSON object, not {_JSON_TYPES.get(type(data), 'null')}"
    if data.get("jsonrpc") != "2.0":
        return 'not a JSON-RPC 2.0 message (no "jsonrpc": "2.0")'
    if "method" in data:
        if not isinstance(data["method"], str):
            return '"method" is not a string'
        if "params" in data and not isinstance(data["params"], (dict, list)):
            return '"params" is neither an object nor an array'
    elif "id" not in data or not ("result" in data or "error" in data):
        return "neither a request, a notification nor a response"
    if "id" in data and _id_of(data) is None and data["id"] is not None:
        return '"id" is neither a number nor a string'
    return None


_JSON_TYPES = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean"}


def _id_of(data: Any) -> int | str | None:
    msg_id = data.get("id") if isinstance(data, dict) else None
    return msg_id if isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool) else None


def _refuse(server: JsonRPCServer, msg_id: int | str | None, code: int, message: str) -> None:
    """One log line, and the error as the response to the message (``"id": null`` when its
    id is unknown: pygls' own response type would leave the id out)."""
    logger.warning("%s", message)
    server.protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})


def _shown(value: bytes) -> str:
    text = value.decode("ascii", "replace")
    return repr(text if len(text) <= 40 else text[:40] + "...")
