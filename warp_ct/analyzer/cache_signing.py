"""Cache entries signed with a key of the user's, so that no one else's entry is ever read.

The lint cache sits beside the linted project (``.warp_ct_cache``), and a cloned repository
is untrusted input: it may commit a cache folder of its own. Every entry is therefore
written as ``MAGIC + HMAC-SHA256(key, payload) + payload`` with a random key that lives
outside every linted tree, in the user's own cache folder (``$XDG_CACHE_HOME/warp-ct`` or
``~/.cache/warp-ct``), readable by the user only, as Jupyter signs notebooks. An entry whose
signature does not verify (planted, copied from another machine, written by another user,
truncated) is a miss. Files are read only when they are regular files of a bounded size, so
a planted FIFO, device or symlink to ``/dev/zero`` cannot hang or exhaust a run.

Without a usable key (no home folder, a read-only one, a key file someone else owns or can
write) nothing is read or written: linting goes on uncached and the run says why.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from pathlib import Path

MAGIC = b"warp-ct-signed-v1\n"
_DIGEST_SIZE = hashlib.sha256().digest_size
KEY_FILE_NAME = "cache-key"
# The largest cache entry read: a project's results or one file's facts are far smaller
# (Isaac Lab's largest entry is a few MB); anything bigger was not written by warp-ct.
MAX_ENTRY_BYTES = 512 * 1024 * 1024


class KeyUnavailable(Exception):
    """The user's cache key cannot be read or made; the message says why, in one sentence."""


def user_key_path() -> Path:
    """Where the key lives: the user's cache folder, never a linted tree."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    if not os.path.isabs(base):  # the XDG spec: a relative value is invalid and ignored
        base = os.path.join(Path.home(), ".cache")
    return Path(base) / "warp-ct" / KEY_FILE_NAME


_KEYS: dict[Path, bytes] = {}


def user_key() -> bytes:
    """The user's signing key, made on first use (raises :class:`KeyUnavailable`)."""
    try:
        path = user_key_path()
    except RuntimeError as exc:  # Path.home() without HOME or a passwd entry
        raise KeyUnavailable(f"no home folder to keep the cache key in ({exc})") from None
    key = _KEYS.get(path)
    if key is None:
        key = _KEYS[path] = _read_or_make_key(path)
    return key


def _read_or_make_key(path: Path) -> bytes:
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = path.with_name(f".{KEY_FILE_NAME}-{os.getpid()}-{os.urandom(4).hex()}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(os.urandom(32).hex().encode("ascii"))
        try:
            os.link(tmp, path)  # fails if another run made the key first: then that one is read
        except FileExistsError:
            pass
        finally:
            os.unlink(tmp)
        return _read_key(path)
    except OSError as exc:
        raise KeyUnavailable(f"cannot create the cache key {path}: {exc.strerror or exc}") from None


def _read_key(path: Path) -> bytes:
    """The key in ``path``, if only this user can have written it."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise KeyUnavailable(f"cannot read the cache key {path}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o022):
            raise KeyUnavailable(f"the cache key {path} is not the user's own (owned by another user, or writable by others)")
        text = handle.read(65)
    try:
        key = bytes.fromhex(text.decode("ascii"))
    except ValueError:
        key = b""
    if len(key) != 32:
        raise KeyUnavailable(f"the cache key {path} is damaged; delete it and warp-ct makes a new one")
    return key


def sign(key: bytes, payload: bytes) -> bytes:
    """``payload`` framed with its signature, as written to the cache."""
    return MAGIC + hmac.new(key, payload, hashlib.sha256).digest() + payload


def verified_payload(key: bytes, data: bytes) -> bytes | None:
    """The payload of a signed entry, or None for anything warp-ct did not sign with ``key``."""
    head = len(MAGIC) + _DIGEST_SIZE
    if len(data) < head or not data.startswith(MAGIC):
        return None
    payload = data[head:]
    expected = hmac.new(key, payload, hashlib.sha256).digest()
    return payload if hmac.compare_digest(expected, data[len(MAGIC):head]) else None


def read_entry(path: str) -> bytes | None:
    """The bytes of the cache file ``path`` if it is a regular file of a sane size, else None
    (missing, a FIFO, a device, a symlink, a folder, too large)."""
    try:
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        fd = os.open(path, flags)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_ENTRY_BYTES:
            return None
        return handle.read(MAX_ENTRY_BYTES + 1)
