"""Exit codes and the usage error every command shares (imports nothing of warp_ct).

Exit codes (ruff's convention): 0 clean, 1 findings at or above the fail level (or, with
``--diff``, changes a fix would make), 2 usage, configuration or internal error.
"""

from __future__ import annotations

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


class UsageError(Exception):
    """A problem with how warp-ct was invoked; the message is shown as is (exit 2)."""


def os_error_reason(exc: OSError) -> str:
    """What went wrong, as the end of a sentence: "permission denied", "no such file or directory"."""
    text = exc.strerror or str(exc)
    return text[:1].lower() + text[1:]
