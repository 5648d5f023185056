"""``--cuda-arch``: CUDA compile cost measured through NVRTC, with or without a GPU.

After a sample's cold and warm runs, ``run_measure`` runs the command once more on the same
private caches with ``$WARP_CT_PROBE_CUDA_ARCHS`` set; at its exit the bootstrap compiles every
module the process loaded for each arch, at each block_dim its launches asked for, with its
options (``inject/cuda_compile.py``). That run's wall is not part of the cold or warm walls.

``cuda_records`` reads those records (:class:`CudaRun` per sample, :class:`CudaBuild` per build);
this module summarises them over samples (:func:`cuda_rows`: median and MAD per module, arch, block_dim and
variant), renders them (text and HTML) and turns them into measured findings that need no GPU:

* WCT009: a module its launches asked for at several block_dims is one CUDA build per
  block_dim on a GPU, each measured here; the finding sits at the launch that asked for a
  block_dim after the module's first one.
* WCT010: a module built with backward code that nothing differentiated is compiled again
  without it; the static-rule-shaped WCT010 that the run's CPU builds gave gets the measured
  CUDA figures (with and without backward code, the difference) in its message and evidence.
"""

from __future__ import annotations

import os
import shutil
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from warp_ct.probe.cuda_records import CudaBuild
from warp_ct.probe.stats import Summary, summarize

if TYPE_CHECKING:
    from warp_ct.probe.samples import SampleResult

CUDA_ARCHS_ENV = "WARP_CT_PROBE_CUDA_ARCHS"  # same name as in inject/cuda_compile.py
HELPER_NAME = "_warp_ct_cuda_compile.py"  # the name sitecustomize.py loads beside itself
_MIN_ARCH, _MAX_ARCH = 50, 199


def helper_source() -> Path:
    return Path(__file__).with_name("inject") / "cuda_compile.py"


def install_helper(bootstrap_dir: str | os.PathLike[str]) -> None:
    """Copy the exit-time compile helper beside the bootstrap (the child loads it from there)."""
    shutil.copyfile(helper_source(), Path(bootstrap_dir) / HELPER_NAME)


def lto_in_cache(cache_root: str | os.PathLike[str]) -> tuple[int, int]:
    """(files, bytes) of LTO IR in the cache's ``lto`` folders, leaving out the one the builds
    without backward code use (``no-backward-cache``, see ``inject/cuda_compile.py``)."""
    files = size = 0
    for dirpath, dirnames, filenames in os.walk(cache_root):
        dirnames[:] = [d for d in dirnames if d != "no-backward-cache"]
        if os.path.basename(dirpath) != "lto":
            continue
        for name in filenames:
            try:
                size += os.path.getsize(os.path.join(dirpath, name))
                files += 1
            except OSError:
                continue
    return files, size


def parse_cuda_archs(value: Any) -> tuple[int, ...]:
    """``"86,90"``, ``"sm_86 sm_90"``, ``[86, 90]`` -> ``(86, 90)``; ``""``/None -> ``()``.

    Raises ValueError naming the bad item (an arch is a compute capability like 75, 86, 90, 120).
    """
    if value is None:
        return ()
    items: Iterable[Any]
    if isinstance(value, str):
        items = [v for v in value.replace(" ", ",").split(",") if v.strip()]
    elif isinstance(value, (list, tuple)):
        items = value
    else:
        raise ValueError(f"expected archs like 86,90, got {value!r}")
    out: list[int] = []
    for item in items:
        text = str(item).strip().lower() if not isinstance(item, bool) else "?"
        if text.startswith("sm_"):
            text = text[3:]
        elif text.startswith("sm"):
            text = text[2:]
        if not text.isdigit() or not _MIN_ARCH <= int(text) <= _MAX_ARCH:
            raise ValueError(f"expected CUDA archs like 86,90 (compute capability without the dot), got {item!r}")
        if int(text) not in out:
            out.append(int(text))
    return tuple(out)


@dataclass(frozen=True)
class CudaRow:
    """One module build for one arch at one block_dim, over samples."""

    module: str
    arch: int
    block_dim: int
    variant: str
    ms: Summary
    nvrtc_ms: Summary
    hash: str | None
    format: str | None
    bytes: int
    source_bytes: int
    backward: bool | None
    launch_order: int
    frames: tuple[dict[str, Any], ...]
    kernel: str | None
    kernels: tuple[dict[str, Any], ...]
    errors: tuple[str, ...] = ()

    @property
    def short_hash(self) -> str:
        return (self.hash or "?")[:8]

    def to_dict(self) -> dict[str, Any]:
        return {
            "module": self.module, "arch": self.arch, "block_dim": self.block_dim, "variant": self.variant,
            "ms": self.ms.to_dict(), "nvrtc_ms": self.nvrtc_ms.to_dict(), "hash": self.hash, "format": self.format,
            "bytes": self.bytes, "source_bytes": self.source_bytes, "backward": self.backward,
            "launch_order": self.launch_order, "frames": [dict(f) for f in self.frames], "kernel": self.kernel,
            "errors": list(self.errors),
        }  # fmt: skip


def cuda_rows(samples: Sequence[SampleResult]) -> list[CudaRow]:
    """Builds grouped by (module, arch, block_dim, variant) over the samples that ran CUDA
    builds; a build another process of the run had already made (``cached``) is not counted."""
    groups: dict[tuple[str, int, int, str], list[CudaBuild]] = defaultdict(list)
    order: dict[tuple[str, int, int, str], int] = {}
    for sample in samples:
        run = getattr(sample, "cuda", None)
        if run is None:
            continue
        for build in run.builds:
            if build.status == "cached":
                continue
            key = (build.module, build.arch, build.block_dim, build.variant)
            groups[key].append(build)
            order.setdefault(key, len(order))
    rows = []
    for key in sorted(groups, key=lambda k: order[k]):
        builds = groups[key]
        ok = [b for b in builds if b.status == "compiled"]
        first = ok[0] if ok else builds[0]
        rows.append(CudaRow(
            module=key[0], arch=key[1], block_dim=key[2], variant=key[3],
            ms=summarize(b.ms for b in ok), nvrtc_ms=summarize(b.nvrtc_ms for b in ok),
            hash=first.hash, format=first.format, bytes=first.bytes, source_bytes=first.source_bytes,
            backward=first.backward, launch_order=first.launch_order, frames=first.frames, kernel=first.kernel,
            kernels=first.kernels, errors=tuple(sorted({b.error for b in builds if b.error})),
        ))  # fmt: skip
    return rows


def cuda_notes(samples: Sequence[SampleResult]) -> list[str]:
    notes: list[str] = []
    for sample in samples:
        run = getattr(sample, "cuda", None)
        if run is None:
            continue
        if run.skipped_archs:
            archs = ", ".join(f"sm_{a}" for a in run.skipped_archs)
            note = f"--cuda-arch: {archs} not compiled through NVRTC: a GPU of that arch ran the program, its real loads are the measurement"
            if note not in notes:
                notes.append(note)
        if run.exit_code not in (None, 0):
            note = f"--cuda-arch: the CUDA build run of sample {sample.index + 1} exited with {run.exit_code}"
            notes.append(note)
        for note in run.notes:
            if note not in notes:
                notes.append(f"--cuda-arch: {note}" if not note.startswith("--cuda-arch") else note)
    return notes


def _churn_notes(samples: Sequence[SampleResult]) -> list[str]:
    """Modules the run built with several hashes at one block_dim: the CUDA builds compile each
    module as it stood when the program ended (once per block_dim), a GPU run builds every hash."""
    first = next((s for s in samples if s.ok and getattr(s, "cuda", None) is not None), None)
    if first is None:
        return []
    hashes: dict[tuple[str, Any], set[str | None]] = defaultdict(set)
    for load in first.cold.loads:
        hashes[(load.module, load.block_dim)].add(load.hash)
    churned = sorted({module for (module, _bd), found in hashes.items() if len(found) > 1})
    if not churned:
        return []
    names = ", ".join(f"`{m}`" for m in churned[:5]) + (f" and {len(churned) - 5} more" if len(churned) > 5 else "")
    return [f"--cuda-arch: {names} changed while the program ran (several hashes): each is compiled for CUDA as it "
            "stood at exit, once per block_dim; a GPU run builds every version again"]  # fmt: skip


def cuda_section(samples: Sequence[SampleResult]) -> dict[str, Any] | None:
    """The report's ``cuda`` section (None when no sample compiled CUDA)."""
    runs = [s.cuda for s in samples if getattr(s, "cuda", None) is not None]
    if not runs:
        return None
    rows = cuda_rows(samples)
    totals: dict[int, float] = defaultdict(float)
    builds: dict[int, int] = defaultdict(int)
    for row in rows:
        if row.variant == "as_run" and row.ms.median is not None:
            totals[row.arch] += row.ms.median
            builds[row.arch] += 1
    return {
        "archs": list(runs[0].archs),
        "toolkit": next((r.toolkit for r in runs if r.toolkit), None),
        "samples": len(runs),
        "builds": [row.to_dict() for row in rows],
        "totals": [{"arch": arch, "builds": builds[arch], "ms": round(totals[arch], 3)} for arch in sorted(totals)],
        "lto_artifacts": max(r.lto_artifacts for r in runs),
        "lto_bytes": max(r.lto_bytes for r in runs),
        "notes": cuda_notes(samples) + _churn_notes(samples),
    }


def _kib(size: int) -> str:
    return f"{size / 1024:.0f} KiB" if size < 10 * 1024 * 1024 else f"{size / 1024 / 1024:.1f} MiB"


def _seconds(ms: float | None) -> str:
    return "-" if ms is None else f"{ms / 1000.0:.2f} s"


def render_cuda_text(samples: Sequence[SampleResult]) -> list[str]:
    """Lines of the text report's CUDA section (empty without CUDA builds)."""
    section = cuda_section(samples)
    if section is None:
        return []
    archs = ", ".join(f"sm_{a}" for a in section["archs"])
    lines = ["", f"CUDA builds through NVRTC for {archs} (no GPU needed; median ± MAD over {section['samples']} sample(s))"]
    rows = cuda_rows(samples)
    if rows:
        lines.append(f"  {'module':<32} {'arch':<6} {'block_dim':>9} {'backward':<9} {'compile':>9}  {'± MAD':>7}  "
                     f"{'output':<16} {'.cu':>8}  hash")  # fmt: skip
    for row in rows:
        backward = "no (off)" if row.variant == "no_backward" else ("yes" if row.backward else "no")
        if row.ms.median is None:
            lines.append(f"  {row.module[:32]:<32} sm_{row.arch:<3} {row.block_dim:>9} {backward:<9} "
                         f"error: {(row.errors or ('?',))[0][:80]}")  # fmt: skip
            continue
        output = f"{row.format or '?'} {_kib(row.bytes)}"
        lines.append(
            f"  {row.module[:32]:<32} sm_{row.arch:<3} {row.block_dim:>9} {backward:<9} {_seconds(row.ms.median):>9}  "
            f"{_seconds(row.ms.mad):>7}  {output:<16} {_kib(row.source_bytes):>8}  {row.short_hash}"
        )
    for total in section["totals"]:
        lines.append(f"  sm_{total['arch']}: {total['builds']} build(s) as the program ran them, {_seconds(total['ms'])} of CUDA compile")
    if section["lto_artifacts"]:
        lines.append(f"  LTO: {section['lto_artifacts']} artifact(s), {_kib(section['lto_bytes'])} (MathDx tile routines)")
    for note in section["notes"]:
        lines.append(f"  - {note}")
    return lines


def render_cuda_html(samples: Sequence[SampleResult], findings: Sequence[dict[str, Any]] = ()) -> str:
    """The HTML page's CUDA section ('' without CUDA builds), with the measured findings that
    carry CUDA figures."""
    import html

    section = cuda_section(samples)
    if section is None:
        return ""
    esc = html.escape
    archs = ", ".join(f"sm_{a}" for a in section["archs"])
    out = [
        f"<h2>CUDA builds through NVRTC ({esc(archs)})</h2><p>Compiled after the run, in its private cache, "
        f"without a GPU; median over {section['samples']} sample(s). Not part of the cold or warm walls.</p>",
        "<table><tr><th>module</th><th>arch</th><th>block_dim</th><th>backward</th><th>compile</th><th>MAD</th>"
        "<th>output</th><th>.cu</th><th>hash</th></tr>",
    ]
    for row in cuda_rows(samples):
        backward = "no (off)" if row.variant == "no_backward" else ("yes" if row.backward else "no")
        if row.ms.median is None:
            out.append(f"<tr><td><code>{esc(row.module)}</code></td><td>sm_{row.arch}</td><td class=num>{row.block_dim}</td>"
                       f"<td>{backward}</td><td colspan=5>error: {esc((row.errors or ('?',))[0])}</td></tr>")  # fmt: skip
            continue
        out.append(
            f"<tr><td><code>{esc(row.module)}</code></td><td>sm_{row.arch}</td><td class=num>{row.block_dim}</td>"
            f"<td>{backward}</td><td class=num>{_seconds(row.ms.median)}</td><td class=num>{_seconds(row.ms.mad)}</td>"
            f"<td>{esc(row.format or '?')} {_kib(row.bytes)}</td><td class=num>{_kib(row.source_bytes)}</td>"
            f"<td><code>{esc(row.short_hash)}</code></td></tr>"
        )
    out.append("</table>")
    totals = "; ".join(f"sm_{t['arch']}: {t['builds']} build(s), {_seconds(t['ms'])}" for t in section["totals"])
    if section["lto_artifacts"]:
        totals += f"; LTO: {section['lto_artifacts']} artifact(s), {_kib(section['lto_bytes'])}"
    if totals:
        out.append(f"<p>{esc(totals)}</p>")
    if section["notes"]:
        out.append("<ul>" + "".join(f"<li>{esc(n)}</li>" for n in section["notes"]) + "</ul>")
    with_cuda = [f for f in findings if any("cuda" in e or "cuda_backward" in e for e in f.get("evidence") or ())]
    if with_cuda:
        out.append("<h3>Measured findings with CUDA figures</h3><ul>" + "".join(
            f"<li><code>{esc(f['path'])}:{f['location']['line']}</code> {esc(f['code'])} {esc(f['message'])}</li>"
            for f in with_cuda) + "</ul>")  # fmt: skip
    return "\n".join(out)


# -- measured findings ---------------------------------------------------------------------


def _installed(path: str | None) -> bool:
    return bool(path) and any(part in ("site-packages", "dist-packages") for part in str(path).replace("\\", "/").split("/"))


def _user_frame(row: CudaRow) -> dict[str, Any] | None:
    for frame in row.frames:
        file = frame.get("file")
        if file and not str(file).startswith("<") and not _installed(file) and int(frame.get("line") or 0) > 0:
            return frame
    return None


def add_cuda_findings(findings: list[dict[str, Any]], samples: Sequence[SampleResult], cwd: str) -> list[dict[str, Any]]:
    """``findings`` (the CPU run's measured findings) with the CUDA builds' evidence added:
    new WCT009 findings for block_dim spread, CUDA figures on the WCT010 findings."""
    rows = [r for r in cuda_rows(samples) if r.ms.median is not None]
    if not rows:
        return findings
    out = list(findings)
    out.extend(_block_dim_findings(rows, out, cwd))
    _backward_share(rows, out)
    out.sort(key=lambda f: (f["path"], f["range"]["start"]["line"], f["range"]["start"]["character"], f["code"], f["message"]))
    return out


def _figures(rows: Sequence[CudaRow]) -> str:
    return ", ".join(f"{_seconds(r.ms.median)} at block_dim {r.block_dim}" for r in sorted(rows, key=lambda r: r.launch_order))


def _block_dim_findings(rows: Sequence[CudaRow], existing: Sequence[dict[str, Any]], cwd: str) -> list[dict[str, Any]]:
    from warp_ct.probe.findings import _evidence, _finding

    by_module: dict[str, list[CudaRow]] = defaultdict(list)
    for row in rows:
        if row.variant == "as_run":
            by_module[row.module].append(row)
    taken = {(f["code"], f["path"], f["location"]["line"]) for f in existing}
    sources: dict[str, list[str] | None] = {}
    out = []
    for module, module_rows in by_module.items():
        per_arch: dict[int, list[CudaRow]] = defaultdict(list)
        for row in module_rows:
            per_arch[row.arch].append(row)
        arch, arch_rows = min(per_arch.items())
        if len({r.block_dim for r in arch_rows}) < 2:
            continue
        files = [str(k.get("file") or "") for k in arch_rows[0].kernels]
        if len(files) < 2:
            continue  # one kernel: each block_dim it asks for is a build it needs (as the static WCT009 sees it)
        if not files or all(not f or f.startswith("<") or _installed(f) for f in files):
            continue  # Warp's or a package's own module: the block_dims are not the user's to choose
        arch_rows = sorted(arch_rows, key=lambda r: r.launch_order)
        first = arch_rows[0]
        first_at = _user_frame(first)
        for row in arch_rows[1:]:
            frame = _user_frame(row)
            if frame is None:
                continue
            path, line = str(frame["file"]), int(frame["line"])
            from warp_ct.probe.findings import _display_path

            if ("WCT009", _display_path(path, cwd), line) in taken:
                continue  # a GPU run measured it already (a block_dim cause at this launch)
            before = f" ({os.path.basename(str(first_at['file']))} line {first_at['line']})" if first_at else ""
            per = "; ".join(f"sm_{a}: {_figures(rs)}" for a, rs in sorted(per_arch.items()))
            total = sum(r.ms.median or 0.0 for r in arch_rows)
            hashes = len({r.hash for r in arch_rows})
            message = (f"`{module}` is launched at block_dim {row.block_dim} here after block_dim {first.block_dim}"
                       f"{before}: on a GPU each block_dim is a CUDA build of its own ({len(arch_rows)} builds, {hashes} "
                       f"hashes), measured through NVRTC: {per}; launch the module's kernels at one block_dim")  # fmt: skip
            evidence = _evidence(message, None, module, total)
            evidence["builds"] = len(arch_rows)
            evidence["distinct_hashes"] = hashes
            evidence["block_dims"] = [r.block_dim for r in arch_rows]
            evidence["cuda"] = [r.to_dict() for r in sorted(module_rows, key=lambda r: (r.arch, r.launch_order))]
            out.append(_finding("WCT009", path, line, message, evidence, cwd, sources, row.kernel))
    return out


def _backward_share(rows: Sequence[CudaRow], findings: list[dict[str, Any]]) -> None:
    """Put the measured CUDA backward share on the WCT010 findings of those modules."""
    with_off = {(r.module, r.arch, r.block_dim): r for r in rows if r.variant == "no_backward"}
    pairs: dict[str, list[tuple[CudaRow, CudaRow]]] = defaultdict(list)
    for row in rows:
        off = with_off.get((row.module, row.arch, row.block_dim))
        if row.variant == "as_run" and off is not None and row.backward:
            pairs[row.module].append((row, off))
    for finding in findings:
        if finding.get("code") != "WCT010":
            continue
        evidence = (finding.get("evidence") or [{}])[0]
        module = evidence.get("module")
        if module not in pairs:
            continue
        parts = []
        for on, off in sorted(pairs[module], key=lambda p: p[0].arch):
            saved = (on.ms.median or 0.0) - (off.ms.median or 0.0)
            share = f" ({saved / on.ms.median:.0%})" if on.ms.median else ""
            figures = (f"sm_{on.arch} at block_dim {on.block_dim}: {_seconds(on.ms.median)} with backward code, "
                       f"{_seconds(off.ms.median)} without ({on.format} {_kib(on.bytes)} vs {_kib(off.bytes)})")  # fmt: skip
            if saved > 0:
                parts.append(f"{figures}: the backward code is {_seconds(saved)}{share} of the build")
            else:
                parts.append(f"{figures}: no saving measured")
        finding["message"] += "; CUDA, measured through NVRTC: " + "; ".join(parts)
        evidence["summary"] = finding["message"]
        evidence["cuda_backward"] = [
            {"arch": on.arch, "block_dim": on.block_dim, "with_backward_ms": on.ms.median,
             "without_backward_ms": off.ms.median, "with_backward_bytes": on.bytes, "without_backward_bytes": off.bytes,
             "format": on.format}
            for on, off in pairs[module]
        ]  # fmt: skip
