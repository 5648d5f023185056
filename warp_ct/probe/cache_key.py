"""``warp-ct cache-key``: a key for CI kernel-cache archives.

Built on ``wp.get_cpu_kernel_cache_key()`` (Warp >= 1.19), which names the CPU compile
target (Warp version, OS, architecture, LLVM and, with ``-march=native``, the host ISA).
The probe never imports Warp itself: a small child interpreter (``--python``, default the
current one) calls it, with a throw-away ``WARP_CACHE_PATH`` so initialising Warp cannot
touch the user's cache.

Optional files/directories are hashed into the key for immutable caches (a key that
changes when dependencies or sources change).

Before 1.19 there is no such function: by default that is an error (exit 5). With
``--allow-fallback`` the key is ``<version>-<OS>-<arch>-fallback`` — coarser (it ignores
LLVM version and host ISA), which is safe because Warp's CPU object file names carry the
target hash: an archive restored on a different CPU only misses, it never loads the
wrong object.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from warp_ct.probe.errors import EXIT_WARP_MISSING, ProbeError

_MARKER = "WARP_CT_CACHE_KEY="
_CHILD_SCRIPT = r"""
import json, platform, sys
result = {"system": platform.system(), "machine": platform.machine()}
try:
    import warp as wp
except Exception as error:
    result["error"] = "import: %r" % (error,)
else:
    result["version"] = getattr(wp.config, "version", None) or getattr(wp, "__version__", None)
    key_function = getattr(wp, "get_cpu_kernel_cache_key", None)
    if key_function is None:
        result["key"] = None
    else:
        flags = json.loads(sys.argv[1])
        try:
            result["key"] = key_function() if flags is None else key_function(cpu_compiler_flags=flags)
        except Exception as error:
            result["error"] = "%s: %s" % (type(error).__name__, error)
print("WARP_CT_CACHE_KEY=" + json.dumps(result))
"""


def query_warp(python: str, cpu_compiler_flags: str | None, timeout: float = 120.0) -> dict[str, object]:
    """Run the child interpreter and return what it found (``key``, ``version``, ``error``)."""
    with tempfile.TemporaryDirectory(prefix="warp-ct-cache-key-") as scratch:
        env = dict(os.environ, WARP_CACHE_PATH=scratch, CUDA_CACHE_PATH=scratch, TMPDIR=scratch)
        try:
            completed = subprocess.run(
                [python, "-c", _CHILD_SCRIPT, json.dumps(cpu_compiler_flags)],
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout,
                stdin=subprocess.DEVNULL,
            )
        except FileNotFoundError:
            raise ProbeError(f"python interpreter not found: {python}") from None
        except subprocess.TimeoutExpired:
            raise ProbeError(f"{python} did not answer within {timeout:g} s") from None
    for line in reversed(completed.stdout.splitlines()):
        if line.startswith(_MARKER):
            return json.loads(line[len(_MARKER):])
    raise ProbeError(f"{python} failed to report a Warp cache key: {completed.stderr.strip()[-400:]}")


def hash_files(paths: Iterable[str]) -> str:
    """sha256 over the given files (directories recursively, hidden and __pycache__ skipped)."""
    digest = hashlib.sha256()
    files: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            for dirpath, dirnames, filenames in os.walk(path):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
                files.extend(Path(dirpath) / name for name in sorted(filenames))
        elif path.is_file():
            files.append(path)
        else:
            raise ProbeError(f"cannot hash {given}: no such file or directory")
    for file in sorted(set(files), key=lambda p: p.as_posix()):
        digest.update(file.as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(file.read_bytes()).digest())
    return digest.hexdigest()


def cache_key(
    *,
    python: str | None = None,
    cpu_compiler_flags: str | None = None,
    files: Iterable[str] = (),
    allow_fallback: bool = False,
) -> str:
    """The CI cache key; raises :class:`ProbeError` (exit 5 when Warp is missing or too old)."""
    files = list(files)
    found = query_warp(python or sys.executable, cpu_compiler_flags)
    error = found.get("error")
    if error and str(error).startswith("import:"):
        raise ProbeError(
            f"Warp is not importable by {python or sys.executable} ({error[8:]}); install warp-lang or pass --python",
            exit_code=EXIT_WARP_MISSING,
        )
    if error:
        raise ProbeError(f"wp.get_cpu_kernel_cache_key() failed: {error}")
    key = found.get("key")
    if key is None:
        if not allow_fallback:
            raise ProbeError(
                f"Warp {found.get('version')} has no wp.get_cpu_kernel_cache_key() (added in 1.19); upgrade "
                "warp-lang, or pass --allow-fallback for a coarser <version>-<OS>-<arch>-fallback key",
                exit_code=EXIT_WARP_MISSING,
            )
        key = f"{found.get('version')}-{found.get('system')}-{found.get('machine')}-fallback"
    if files:
        key = f"{key}-{hash_files(files)[:16]}"
    return str(key)
