"""`warp-ct serve` fed raw bytes: oversized, unframed, non-JSON and non-JSON-RPC input gets a
JSON-RPC error (or a one-line log) and the server goes on serving; no traceback, no MemoryError.

Each test runs the real server as a subprocess over stdio (TCP once) and writes bytes, not
messages a client library would refuse to send.
"""

from __future__ import annotations

import json
import queue
import socket
import subprocess
import sys
import threading
import time

import pytest

from tests.server.helpers import server_env

SERVE = [sys.executable, "-m", "warp_ct", "serve"]
TIMEOUT = 60
MiB = 1024 * 1024


def frame(message: object) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


INITIALIZE = frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})


def read_frames(data: bytes) -> list[dict]:
    """The JSON bodies of the framed messages in ``data``."""
    messages = []
    while data:
        head, sep, rest = data.partition(b"\r\n\r\n")
        assert sep, f"unframed output: {data[:200]!r}"
        length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
        messages.append(json.loads(rest[:length]))
        data = rest[length:]
    return messages


def run_server(stdin: bytes) -> tuple[list[dict], str, int]:
    """Feed ``stdin`` to a server, then end its input: (messages it wrote, its stderr, its exit code)."""
    proc = subprocess.run(SERVE, input=stdin, capture_output=True, env=server_env(), timeout=TIMEOUT)
    return read_frames(proc.stdout), proc.stderr.decode(), proc.returncode


def errors(messages: list[dict]) -> list[tuple[object, int, str]]:
    return [(m["id"], m["error"]["code"], m["error"]["message"]) for m in messages if "error" in m]


def assert_initialized(messages: list[dict]) -> None:
    answer = [m for m in messages if m.get("id") == 1 and "result" in m]
    assert answer and answer[0]["result"]["serverInfo"]["name"] == "warp-ct", messages


def assert_quiet(stderr: str) -> None:
    """Each problem is one warning line: no traceback, no MemoryError."""
    assert "Traceback" not in stderr and "MemoryError" not in stderr, stderr
    assert all(line.startswith("warp-ct WARNING ") for line in stderr.splitlines()), stderr


def test_each_bad_message_gets_an_error_and_the_server_reads_on():
    unframed = b'{"jsonrpc": "2.0", "method": "x"}'
    bad = [
        (frame(b'{"jsonrpc": "2.0", "id": 5, "method": '), None, -32700, "Parse error: the message is not JSON ("),
        (frame(b'{"text": "\xff"}'), None, -32700, "Parse error: the message is not JSON ("),  # not UTF-8
        (frame(b"[" * 100_000), None, -32700, "Parse error: the message is not JSON ("),  # nested too deep
        # no Content-Length: the body cannot be framed, and is skipped up to the next header
        (b"Content-Type: application/json\r\n\r\n" + unframed, None, -32700,
         "Parse error: a message header without Content-Length; the message was skipped"),
        (b"Content-Length: abc\r\n\r\n{}", None, -32700, "Parse error: Content-Length is not a number ('abc')"),
        (b"Content-Length: -2\r\n\r\n{}", None, -32700, "Parse error: Content-Length is not a number ('-2')"),
        (frame({"foo": 1}), None, -32600, 'Invalid Request: not a JSON-RPC 2.0 message (no "jsonrpc": "2.0")'),
        (frame([{"jsonrpc": "2.0", "id": 2, "method": "shutdown"}]), None, -32600, "Invalid Request: a message is a JSON object, not an array"),
        (frame(b"null"), None, -32600, "Invalid Request: a message is a JSON object, not null"),
        (frame({"jsonrpc": "2.0", "id": 3, "method": 5}), 3, -32600, 'Invalid Request: "method" is not a string'),
        (frame({"jsonrpc": "2.0", "id": 4}), 4, -32600, "Invalid Request: neither a request, a notification nor a response"),
        (frame({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"capabilities": 5}}), 7, -32602,
         "invalid params for 'initialize': invalid value for type, expected ClientCapabilities @ $.params.capabilities"),
    ]  # fmt: skip
    messages, stderr, rc = run_server(b"".join(data for data, *_ in bad) + INITIALIZE)
    got = errors(messages)
    assert len(got) == len(bad), got
    for (msg_id, code, message), (_data, want_id, want_code, want_message) in zip(got, bad):
        assert (msg_id, code) == (want_id, want_code) and message.startswith(want_message), (msg_id, code, message)
    assert_initialized(messages)
    assert rc == 0
    assert_quiet(stderr)
    assert f"skipped {len(unframed)} bytes of input that were not a message header" in stderr


def test_a_notification_with_bad_params_is_logged_in_one_line():
    did_open = frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": 1}}})
    messages, stderr, rc = run_server(did_open + INITIALIZE)
    assert errors(messages) == [] and rc == 0
    assert_initialized(messages)
    assert_quiet(stderr)
    assert "ignored notification 'textDocument/didOpen': invalid params for 'textDocument/didOpen'" in stderr


def test_header_variants_and_long_lines():
    lowercase = INITIALIZE.replace(b"Content-Length", b"content-length")
    long_line = b"X-Junk: " + b"x" * (64 * 1024) + b"\r\n"
    messages, stderr, rc = run_server(b"\r\n" + long_line + lowercase)
    assert errors(messages) == [] and rc == 0
    assert_initialized(messages)
    assert_quiet(stderr)
    assert "skipped" in stderr  # the long line, in one warning


def test_a_huge_content_length_is_refused_without_allocating_it():
    # The bytes never come: the server answers at once, waits for them, and stops cleanly
    # when the input ends (before: "internal error: MemoryError", exit 2).
    for length, shown in [(b"99999999999", "99999999999"), (b"9" * 4000, "9" * 20 + "...")]:
        messages, stderr, rc = run_server(b"Content-Length: " + length + b"\r\n\r\n" + INITIALIZE)
        assert errors(messages) == [(None, -32600, f"Invalid Request: a message of {shown} bytes is over the limit of 64 MiB; it was skipped")]
        assert rc == 0
        assert_quiet(stderr)
        assert "the input ended inside the skipped message; stopping" in stderr


def test_an_oversized_body_is_skipped_and_the_next_message_served():
    size = 64 * MiB + 1
    head, tail = b'{"jsonrpc": "2.0", "method": "x", "params": "', b'"}'
    body = head + b"a" * (size - len(head) - len(tail)) + tail
    messages, stderr, rc = run_server(frame(body) + INITIALIZE)
    assert errors(messages) == [(None, -32600, f"Invalid Request: a message of {size} bytes is over the limit of 64 MiB; it was skipped")]
    assert_initialized(messages)
    assert rc == 0
    assert_quiet(stderr)


class Server:
    """A server subprocess spoken to one message at a time."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(SERVE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=server_env())
        self.messages: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stdout = self.proc.stdout
        while True:
            length = None
            while (line := stdout.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line or length is None:
                return
            self.messages.put(json.loads(stdout.read(length)))

    def send(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def receive(self, matching=lambda message: "id" in message) -> dict:
        deadline = time.monotonic() + TIMEOUT
        while True:
            message = self.messages.get(timeout=max(0.1, deadline - time.monotonic()))
            if matching(message):
                return message


def test_the_server_answers_a_parse_error_then_serves_a_session():
    server = Server()
    try:
        server.send(frame(b"{not json"))
        reply = server.receive()
        assert reply["id"] is None and reply["error"]["code"] == -32700
        server.send(INITIALIZE)
        assert server.receive()["result"]["serverInfo"]["name"] == "warp-ct"
        server.send(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        server.send(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        assert server.receive(lambda m: m.get("id") == 2) == {"jsonrpc": "2.0", "id": 2, "result": None}
        server.send(frame({"jsonrpc": "2.0", "method": "exit"}))
        assert server.proc.wait(TIMEOUT) == 0
        assert_quiet(server.proc.stderr.read().decode())
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_over_tcp_too():
    port = _free_port()
    proc = subprocess.Popen([*SERVE, "--tcp", f"127.0.0.1:{port}"], stderr=subprocess.PIPE, env=server_env())
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    pytest.fail("the TCP server did not start")
                time.sleep(0.2)
        with conn:
            conn.sendall(frame(b"{not json") + b"Content-Length: 12 bytes\r\n\r\n{}")
            conn.sendall(frame({"foo": 1}) + INITIALIZE)
            data = b""
            while not any(m.get("id") == 1 for m in _complete_frames(data)):
                chunk = conn.recv(65536)
                assert chunk, "the server closed the connection"
                data += chunk
        messages = read_frames(data)
        assert [code for _id, code, _message in errors(messages)] == [-32700, -32700, -32600]
        assert_initialized(messages)
    finally:
        proc.terminate()
        proc.wait(TIMEOUT)
    assert_quiet(proc.stderr.read().decode())


def _complete_frames(data: bytes) -> list[dict]:
    try:
        return read_frames(data)
    except (AssertionError, ValueError, StopIteration):
        return []  # a frame is still arriving


def test_exit_without_shutdown_ends_with_status_1():
    # LSP: the server exits with 0 after a `shutdown` request, with 1 when `exit` comes alone.
    exit_ = frame({"jsonrpc": "2.0", "method": "exit"})
    shutdown = frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    _messages, stderr, rc = run_server(INITIALIZE + exit_)
    assert rc == 1, stderr
    messages, stderr, rc = run_server(INITIALIZE + shutdown + exit_)
    assert rc == 0, stderr
    assert any(m.get("id") == 2 and "result" in m for m in messages)
