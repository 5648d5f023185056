"""Code that runs inside the measured process (see ``sitecustomize.py``).

Nothing here is imported by the probe itself: :func:`bootstrap_source` only locates the
bootstrap file so :mod:`warp_ct.probe.isolation` can copy it into a private directory.
"""

from __future__ import annotations

from pathlib import Path

RECORDS_DIR_ENV = "WARP_CT_PROBE_RECORDS_DIR"
# JSON of the one lever ``probe levers`` applies in this run (see ``sitecustomize.py``).
LEVER_ENV = "WARP_CT_PROBE_LEVER"


def bootstrap_source() -> Path:
    """Path of the ``sitecustomize.py`` bootstrap shipped with warp-ct."""
    return Path(__file__).with_name("sitecustomize.py")
