"""The records of ``--cuda-arch`` builds: one :class:`CudaBuild` per module, arch, block_dim
and variant, one :class:`CudaRun` per sample, read from the run's per-process record files.

Data only (a sample holds its ``CudaRun``); what is made of it (rows over samples, text,
HTML, findings) is ``cuda``'s.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class CudaBuild:
    """One build of a module for one arch at one block_dim (``variant`` ``as_run`` or
    ``no_backward``: compiled again without backward code, to measure its share)."""

    module: str
    arch: int
    block_dim: int
    variant: str
    status: str  # compiled / cached (another process of the run built it) / error
    ms: float | None = None  # the build: codegen + NVRTC
    nvrtc_ms: float | None = None
    hash: str | None = None
    format: str | None = None  # ptx / cubin
    bytes: int = 0
    source_bytes: int = 0
    backward: bool | None = None  # the build held backward code
    error: str | None = None
    launch_order: int = 0  # 0: the module's first block_dim in this run
    frames: tuple[dict[str, Any], ...] = ()  # user frames of the first launch at this block_dim
    kernel: str | None = None
    kernels: tuple[dict[str, Any], ...] = ()
    pid: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "module": self.module, "arch": self.arch, "block_dim": self.block_dim, "variant": self.variant,
            "status": self.status, "ms": self.ms, "nvrtc_ms": self.nvrtc_ms, "hash": self.hash, "format": self.format,
            "bytes": self.bytes, "source_bytes": self.source_bytes, "backward": self.backward, "error": self.error,
            "launch_order": self.launch_order, "frames": [dict(f) for f in self.frames], "kernel": self.kernel,
            "kernels": [dict(k) for k in self.kernels], "pid": self.pid,
        }  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CudaBuild:
        def number(key: str) -> float | None:
            value = data.get(key)
            return None if value is None else float(value)

        return cls(
            module=str(data.get("module")), arch=int(data.get("arch") or 0), block_dim=int(data.get("block_dim") or 0),
            variant=str(data.get("variant") or "as_run"), status=str(data.get("status") or "error"),
            ms=number("ms"), nvrtc_ms=number("nvrtc_ms"), hash=data.get("hash"), format=data.get("format"),
            bytes=int(data.get("bytes") or 0), source_bytes=int(data.get("source_bytes") or 0),
            backward=None if data.get("backward") is None else bool(data["backward"]), error=data.get("error"),
            launch_order=int(data.get("launch_order") or 0),
            frames=tuple(dict(f) for f in data.get("frames") or () if isinstance(f, dict)), kernel=data.get("kernel"),
            kernels=tuple(dict(k) for k in data.get("kernels") or () if isinstance(k, dict)),
            pid=int(data.get("pid") or 0),
        )  # fmt: skip


@dataclass
class CudaRun:
    """The extra run of one sample that compiled CUDA at exit."""

    archs: list[int]
    exit_code: int | None = None
    wall_s: float | None = None  # the whole run (program + CUDA builds): informative, in no metric
    builds: list[CudaBuild] = field(default_factory=list)
    skipped_archs: list[int] = field(default_factory=list)  # a GPU of that arch ran the program
    toolkit: str | None = None
    notes: list[str] = field(default_factory=list)
    lto_artifacts: int = 0  # LTO IR the CUDA builds left in the cache (MathDx: tile matmul, FFT, Cholesky)
    lto_bytes: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "archs": list(self.archs), "exit_code": self.exit_code, "wall_s": self.wall_s,
            "builds": [b.to_dict() for b in self.builds], "skipped_archs": list(self.skipped_archs),
            "toolkit": self.toolkit, "notes": list(self.notes), "lto_artifacts": self.lto_artifacts,
            "lto_bytes": self.lto_bytes,
        }  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CudaRun:
        return cls(
            archs=[int(a) for a in data.get("archs") or ()],
            exit_code=None if data.get("exit_code") is None else int(data["exit_code"]),
            wall_s=None if data.get("wall_s") is None else float(data["wall_s"]),
            builds=[CudaBuild.from_dict(b) for b in data.get("builds") or ()],
            skipped_archs=[int(a) for a in data.get("skipped_archs") or ()],
            toolkit=data.get("toolkit"),
            notes=[str(n) for n in data.get("notes") or ()],
            lto_artifacts=int(data.get("lto_artifacts") or 0),
            lto_bytes=int(data.get("lto_bytes") or 0),
        )


def read_cuda_records(records_dir: str | os.PathLike[str], archs: Sequence[int]) -> CudaRun:
    """The ``cuda_*`` records of a run's per-process files (malformed lines skipped)."""
    run = CudaRun(archs=list(archs))
    started = ended = 0
    for path in sorted(Path(records_dir).glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if not isinstance(record, dict):
                continue
            kind = record.get("kind")
            if kind == "cuda_start":
                started += 1
                for arch in record.get("skipped_archs") or ():
                    if int(arch) not in run.skipped_archs:
                        run.skipped_archs.append(int(arch))
                run.toolkit = run.toolkit or record.get("toolkit")
                if record.get("note") and record["note"] not in run.notes:
                    run.notes.append(str(record["note"]))
            elif kind == "cuda_build":
                run.builds.append(CudaBuild.from_dict(record))
            elif kind == "cuda_end":
                ended += 1
                if record.get("error"):
                    run.notes.append(f"CUDA builds stopped by an error: {record['error']}")
    if started > ended:
        run.notes.append("CUDA builds did not finish (the run was stopped or timed out): the builds listed are those done")
    if not started:
        run.notes.append("no process of the run reached the CUDA builds at exit: it loaded no Warp module, or it ended "
                         "without running atexit handlers (os._exit, a signal)")  # fmt: skip
    return run
